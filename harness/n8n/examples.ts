/**
 * The example workflows (examples/), read as users download them: the tests and the demo import these
 * bytes unchanged, with only the credential chosen.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from './lines';
import type { N8nApi, WorkflowJson } from './rest';

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

/** The names of the shipped examples (`examples/<name>.json`), sorted. */
export function exampleNames(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.map((file) => file.replace(/\.json$/, ''))
		.sort();
}

/** The file's bytes parsed, nothing changed. */
export function loadExample(name: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, `${name}.json`), 'utf8')) as WorkflowJson;
}

/**
 * The contacts the CRM stand-in of examples/crm-sync.json keeps in its workflow's static data (n8n
 * saves it after published runs), by conversation ID.
 */
export async function crmContacts(
	api: N8nApi,
	workflowId: string,
): Promise<Record<string, Record<string, unknown>>> {
	const { staticData } = await api.request<{ staticData?: unknown }>(
		'GET',
		`/rest/workflows/${workflowId}`,
	);
	const data = (typeof staticData === 'string' ? JSON.parse(staticData) : staticData) as
		| { global?: { contacts?: Record<string, Record<string, unknown>> } }
		| null
		| undefined;
	return data?.global?.contacts ?? {};
}
