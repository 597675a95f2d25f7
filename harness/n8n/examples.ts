/**
 * The example workflows (examples/), read as users download them: the tests and the demo import these
 * bytes unchanged, with only the credential chosen.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from './lines';
import type { WorkflowJson } from './rest';

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
