/**
 * scripts/n8n-lines.json names the n8n lines the package is tested on; scripts/run.sh runs them. The
 * README's Compatibility table promises exactly those lines, and every file meant to run on every
 * line exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { N8N_LINES, REPO_ROOT } from '../../harness/n8n';

function compatibilityRows(): string[] {
	const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
	const section = readme.split('\n## Compatibility\n')[1]?.split('\n## ')[0] ?? '';
	return section.split('\n').filter((line) => line.startsWith('| '));
}

test("the README's Compatibility table names exactly the lines that are tested, with their roles", () => {
	const named = compatibilityRows()
		.map((row) => /^\| (\d+\.\d+\.\d+)\b(.*?)\|/.exec(row))
		.filter((match): match is RegExpExecArray => match !== null)
		.map((match) => ({ version: match[1], note: match[2].trim() }));
	expect(named.map((row) => row.version).sort()).toEqual(
		N8N_LINES.lines.map((line) => line.version).sort(),
	);
	for (const line of N8N_LINES.lines.filter((l) => l.version !== N8N_LINES.primary))
		expect(named.find((row) => row.version === line.version)?.note).toBe(`(${line.role})`);
});

test('the primary line is one of the lines, and it has the editor check', () => {
	const primary = N8N_LINES.lines.find((line) => line.version === N8N_LINES.primary);
	expect(primary).toMatchObject({ role: 'primary', editor: true });
});

test('every file named to run on every line exists', () => {
	const missing = N8N_LINES.everyLine.filter(
		(name) => !existsSync(join(REPO_ROOT, 'test', 'e2e', `${name}.e2e.test.ts`)),
	);
	expect(missing).toEqual([]);
});
