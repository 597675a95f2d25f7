/** The example workflows (examples/) and the CRM table of crm-sync. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from './lines';
import type { WorkflowJson } from './rest';

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

export function loadExample(name: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, `${name}.json`), 'utf8')) as WorkflowJson;
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
