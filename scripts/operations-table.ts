/**
 * `npm run docs:operations`: writes the operations table of README.md, between the markers
 * `<!-- operations:start -->` and `<!-- operations:end -->`, from the registry of operations
 * (nodes/VoiceAi/actions/registry.ts), and checks that docs/operations.md has one section per
 * operation (`### Resource → Operation`, "(changes data)" when it does). A missing section is prose
 * to write: the script names it and fails. test/node/catalogue-description.test.ts fails on either.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { RegisteredOperation } from '../nodes/VoiceAi/actions/registry';
import { allOperations } from '../nodes/VoiceAi/actions/registry';

export const README = join(__dirname, '..', 'README.md');
export const DOCS = join(__dirname, '..', 'docs', 'operations.md');
export const START = '<!-- operations:start -->';
export const END = '<!-- operations:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The Request cell: each request in order, a conditional one with when it is sent. */
function requestsCell({ operation }: RegisteredOperation): string {
	if (operation.requests.length === 0) return `none (${operation.worksOn})`;
	return operation.requests
		.map(({ method, path, when }) => `\`${method} ${path}\`${when ? ` ${when}` : ''}`)
		.join(', then ');
}

/** The table, one row per operation in the editor's order. */
export function operationsTable(operations = allOperations()): string {
	const rows = operations.map((entry) =>
		[
			entry.resource.name,
			entry.operation.name,
			requestsCell(entry),
			entry.operation.changesData === false ? 'no' : 'yes',
			entry.operation.summary,
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

/** An operation's section heading in docs/operations.md. */
export function docsHeading({ resource, operation }: RegisteredOperation): string {
	return `### ${resource.name} → ${operation.name}${operation.changesData === false ? '' : ' (changes data)'}`;
}

/** What is wrong with docs/operations.md's operation sections, or undefined. */
export function docsSectionsProblem(docs: string): string | undefined {
	const headings = docs.split('\n').filter((line) => /^### .+ → /.test(line));
	const wanted = allOperations().map(docsHeading);
	const missing = wanted.filter((heading) => !headings.includes(heading));
	const extra = headings.filter((heading) => !wanted.includes(heading));
	const twice = headings.filter((heading, index) => headings.indexOf(heading) !== index);
	if (missing.length + extra.length + twice.length === 0) return undefined;
	return [
		'docs/operations.md does not have one section per operation:',
		...missing.map((heading) => `  missing: "${heading}" (write its request, fields and output)`),
		...extra.map((heading) => `  no such operation, or "(changes data)" wrong: "${heading}"`),
		...twice.map((heading) => `  twice: "${heading}"`),
	].join('\n');
}

if (require.main === module) {
	try {
		const before = readFileSync(README, 'utf8');
		const after = withTable(before);
		writeFileSync(README, after);
		console.log(
			before === after
				? 'README.md: operations table already up to date'
				: `README.md: operations table written (${allOperations().length} operations)`,
		);
		const problem = docsSectionsProblem(readFileSync(DOCS, 'utf8'));
		if (problem) throw new Error(problem);
		console.log('docs/operations.md: one section per operation');
	} catch (error) {
		console.error((error as Error).message);
		process.exit(1);
	}
}
