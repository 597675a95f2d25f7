/**
 * `npm run docs:operations`: writes the operations table of README.md, between the markers
 * `<!-- operations:start -->` and `<!-- operations:end -->`, from the catalogue of operations
 * (test/support/catalogue.ts). test/node/catalogue-description.test.ts fails while README.md differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { CatalogueEntry } from '../test/support/catalogue';
import { catalogue } from '../test/support/catalogue';

export const README = join(__dirname, '..', 'README.md');
export const START = '<!-- operations:start -->';
export const END = '<!-- operations:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The table, one row per operation in the catalogue's order. */
export function operationsTable(entries: CatalogueEntry[] = catalogue): string {
	const rows = entries.map((entry) =>
		[
			entry.resourceName,
			entry.operationName,
			entry.request === null ? `none (${entry.instead})` : `\`${entry.request}\``,
			entry.changesData ? 'yes' : 'no',
			entry.summary,
		].map(cell),
	);
	return [
		'| Resource | Operation | Request | Changes data | What it does |',
		'|---|---|---|---|---|',
		...rows.map((row) => `| ${row.join(' | ')} |`),
	].join('\n');
}

/** The text between the markers, or an error saying what is missing. */
export function tableIn(readme: string): string {
	const start = readme.indexOf(START);
	const end = readme.indexOf(END);
	if (start === -1 || end === -1 || end < start)
		throw new Error(
			`README.md has no operations block: put the lines "${START}" and "${END}" where the table goes, then run npm run docs:operations`,
		);
	return readme.slice(start + START.length, end).trim();
}

/** README.md with the block between the markers replaced by the current table. */
export function withTable(readme: string): string {
	tableIn(readme);
	const start = readme.indexOf(START) + START.length;
	return `${readme.slice(0, start)}\n${operationsTable()}\n${readme.slice(readme.indexOf(END))}`;
}

if (require.main === module) {
	try {
		const before = readFileSync(README, 'utf8');
		const after = withTable(before);
		writeFileSync(README, after);
		console.log(
			before === after
				? 'README.md: operations table already up to date'
				: `README.md: operations table written (${catalogue.length} operations)`,
		);
	} catch (error) {
		console.error((error as Error).message);
		process.exit(1);
	}
}
