/** The example workflows (examples/) and the CRM table of crm-sync. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from './lines';
import type { WorkflowJson } from './rest';

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

export function loadExample(name: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, `${name}.json`), 'utf8')) as WorkflowJson;
}

/**
 * The example as a user publishes it the first time in a freshly started n8n for an organization no
 * other workflow uses: its Voice AI Trigger says so ("If Nobody Can Tell Who Holds It" = Go Ahead),
 * since n8n keeps no record of who holds the account across a start.
 */
export function withGoAhead(workflow: WorkflowJson): WorkflowJson {
	for (const node of workflow.nodes) {
		if (node.type.endsWith('.voiceAiTrigger')) {
			node.parameters = { ...node.parameters, whenOwnerUnknown: 'listen' };
		}
	}
	return workflow;
}

/** The CRM stand-in of examples/crm-sync.json: an n8n Data Table the workflow upserts contacts into. */
export const CRM_TABLE = {
	name: 'CRM contacts',
	columns: [
		{ name: 'phone', type: 'string' },
		{ name: 'name', type: 'string' },
		{ name: 'email', type: 'string' },
		{ name: 'intent', type: 'string' },
		{ name: 'conversation_id', type: 'string' },
		{ name: 'completed_at', type: 'string' },
		{ name: 'source', type: 'string' },
	] as Array<{ name: string; type: 'string' }>,
};
