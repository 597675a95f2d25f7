/**
 * The README's install paths and "First workflow" as a newcomer reads them: the environment-variable
 * install pins the version package.json releases, the first steps stay short and name the example and
 * the test that takes them, and the example they import exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EXAMPLES_DIR, PACKAGE_NAME, REPO_ROOT } from '../../harness/n8n';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const section = (heading: string) => readme.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';

test("N8N_COMMUNITY_PACKAGES in the README pins the package's own name and version", () => {
	const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
		version: string;
	};
	const value = /^N8N_COMMUNITY_PACKAGES='(.*)'$/m.exec(section('Install in n8n'))?.[1];
	expect(JSON.parse(String(value))).toEqual([{ name: PACKAGE_NAME, version }]);
});

test('"First workflow" has at most eight steps, imports a shipped example and names the test that follows it', () => {
	const first = section('First workflow');
	const steps = first.split('\n').filter((line) => /^\d+\. /.test(line));
	expect(steps.length).toBeGreaterThan(0);
	expect(steps.length).toBeLessThanOrEqual(8);
	const example = /\(examples\/([\w-]+\.json)\)/.exec(first)?.[1];
	expect(existsSync(join(EXAMPLES_DIR, String(example)))).toBe(true);
	const test = /`(test\/e2e\/[\w-]+\.e2e\.test\.ts)`/.exec(first)?.[1];
	expect(existsSync(join(REPO_ROOT, String(test)))).toBe(true);
});
