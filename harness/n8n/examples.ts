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

/** The Data Table examples/crm-sync.json creates on its first run and upserts contacts into. */
export const CRM_TABLE_NAME = 'CRM contacts';

/** The id of the data table named `name` in the owner's project, once it exists. */
export async function dataTableId(api: N8nApi, name: string): Promise<string | undefined> {
	const project = await api.personalProjectId();
	const filter = encodeURIComponent(JSON.stringify({ name }));
	const page = await api.request<{ data: Array<{ id: string; name: string }> }>(
		'GET',
		`/rest/projects/${project}/data-tables?filter=${filter}`,
	);
	return page.data.find((table) => table.name === name)?.id;
}
