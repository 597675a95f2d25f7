/** What every scenario hands back, and how it is printed (stdout) and written (bench/RESULTS.md). */

export interface Check {
	name: string;
	target: string;
	measured: string;
	pass: boolean;
}

export interface ScenarioResult {
	title: string;
	/** What was run, in one or two sentences. */
	setup: string;
	header: string[];
	rows: string[][];
	checks: Check[];
	notes: string[];
}

export function markdownTable(header: string[], rows: string[][]): string {
	const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
	return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function checksTable(checks: Check[]): string {
	return markdownTable(
		['Check', 'Target', 'Measured', 'Result'],
		checks.map((check) => [
			check.name,
			check.target,
			check.measured,
			check.pass ? 'pass' : '**FAIL**',
		]),
	);
}

export function scenarioMarkdown(result: ScenarioResult): string {
	return [
		`## ${result.title}`,
		'',
		result.setup,
		'',
		markdownTable(result.header, result.rows),
		'',
		checksTable(result.checks),
		...(result.notes.length ? ['', ...result.notes.map((note) => `- ${note}`)] : []),
		'',
	].join('\n');
}

/** Plain-text table for the terminal. */
export function textTable(header: string[], rows: string[][]): string {
	const widths = header.map((cell, column) =>
		Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
	);
	const line = (cells: string[]) =>
		cells.map((cell, column) => cell.padEnd(widths[column])).join('  ');
	return [
		line(header),
		widths.map((width) => '-'.repeat(width)).join('  '),
		...rows.map(line),
	].join('\n');
}
