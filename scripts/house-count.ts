/**
 * `npm run house:count`: the size of the shipped code and the files a reader follows from an entry.
 *
 * - Shipped code: every .ts file under nodes/ and credentials/, and index.js (not the .json and .svg
 *   files); lines counted twice, all of them and those that are not blank.
 * - For each entry file: the repository files it reaches through relative imports, transitively, the
 *   entry included. An import counts as a runtime import when TypeScript keeps it in the emitted
 *   JavaScript (a `require` in `ts.transpileModule`'s output, as the build emits it); the others
 *   (`import type`, `export type`, names used only as types) are type-only. A file reached only
 *   through type-only imports at some step is listed as such.
 *
 * `--list` prints each entry's files, one a line, with their line counts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..');

export const ENTRIES = [
	{ name: 'Agent → Create', file: 'nodes/VoiceAi/actions/agent/create.operation.ts' },
	{ name: 'the Voice AI node', file: 'nodes/VoiceAi/VoiceAi.node.ts' },
	{ name: 'the Voice AI Trigger node', file: 'nodes/VoiceAiTrigger/VoiceAiTrigger.node.ts' },
];

interface Lines {
	total: number;
	nonBlank: number;
}

function linesOf(file: string): Lines {
	const text = readFileSync(join(ROOT, file), 'utf8');
	const lines = text.split('\n');
	if (lines[lines.length - 1] === '') lines.pop();
	return { total: lines.length, nonBlank: lines.filter((line) => line.trim() !== '').length };
}

function sum(files: string[]): Lines {
	return files.map(linesOf).reduce(
		(a, b) => ({
			total: a.total + b.total,
			nonBlank: a.nonBlank + b.nonBlank,
		}),
		{ total: 0, nonBlank: 0 },
	);
}

function filesUnder(folder: string, ending: string): string[] {
	const found: string[] = [];
	for (const name of readdirSync(join(ROOT, folder)).sort()) {
		const path = join(folder, name);
		if (statSync(join(ROOT, path)).isDirectory()) found.push(...filesUnder(path, ending));
		else if (name.endsWith(ending)) found.push(path);
	}
	return found;
}

export function shippedFiles(): string[] {
	return [...filesUnder('nodes', '.ts'), ...filesUnder('credentials', '.ts'), 'index.js'];
}

/** A relative specifier as Node and TypeScript resolve it, or undefined when it is not a file here. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
	const base = resolve(ROOT, dirname(from), specifier);
	const candidates = [base, `${base}.ts`, `${base}.js`, `${base}.json`, join(base, 'index.ts')];
	const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
	return found === undefined ? undefined : relative(ROOT, found);
}

function specifiersOf(node: ts.Node, found: string[]): void {
	if (
		(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
		node.moduleSpecifier !== undefined &&
		ts.isStringLiteral(node.moduleSpecifier)
	) {
		found.push(node.moduleSpecifier.text);
	} else if (
		ts.isCallExpression(node) &&
		(node.expression.kind === ts.SyntaxKind.ImportKeyword ||
			(ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
		node.arguments.length === 1 &&
		ts.isStringLiteral(node.arguments[0])
	) {
		found.push(node.arguments[0].text);
	} else if (
		ts.isImportEqualsDeclaration(node) &&
		ts.isExternalModuleReference(node.moduleReference) &&
		ts.isStringLiteral(node.moduleReference.expression)
	) {
		found.push(node.moduleReference.expression.text);
	}
	ts.forEachChild(node, (child) => specifiersOf(child, found));
}

function specifiersIn(file: string, text: string): string[] {
	const found: string[] = [];
	specifiersOf(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true), found);
	return found;
}

interface Edges {
	all: string[];
	runtime: string[];
}

const edgeCache = new Map<string, Edges>();

/** The repository files one file imports: all of them, and those its emitted JavaScript requires. */
function edgesOf(file: string): Edges {
	const cached = edgeCache.get(file);
	if (cached) return cached;
	const text = readFileSync(join(ROOT, file), 'utf8');
	const emitted = file.endsWith('.ts')
		? ts.transpileModule(text, {
				fileName: file,
				compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
			}).outputText
		: text;
	const local = (specifiers: string[]) => [
		...new Set(
			specifiers
				.filter((specifier) => specifier.startsWith('.'))
				.map((specifier) => resolveSpecifier(file, specifier))
				.filter((path): path is string => path !== undefined),
		),
	];
	const edges = {
		all: file.endsWith('.json') ? [] : local(specifiersIn(file, text)),
		runtime: file.endsWith('.json') ? [] : local(specifiersIn(`${file}.js`, emitted)),
	};
	edgeCache.set(file, edges);
	return edges;
}

function reach(entry: string, kind: keyof Edges): string[] {
	const seen = new Set([entry]);
	const queue = [entry];
	while (queue.length > 0) {
		for (const next of edgesOf(queue.shift() as string)[kind]) {
			if (!seen.has(next)) {
				seen.add(next);
				queue.push(next);
			}
		}
	}
	return [...seen].sort();
}

export interface Reached {
	all: string[];
	runtime: string[];
	typeOnly: string[];
}

export function reachedFrom(entry: string): Reached {
	const all = reach(entry, 'all');
	const runtime = reach(entry, 'runtime');
	return { all, runtime, typeOnly: all.filter((file) => !runtime.includes(file)) };
}

const figure = (n: number) => n.toLocaleString('en-US');
const lines = ({ total, nonBlank }: Lines) =>
	`${figure(total)} lines (${figure(nonBlank)} not blank)`;

function main(): void {
	const list = process.argv.includes('--list');
	const shipped = shippedFiles();
	console.log(
		`Shipped code (every .ts under nodes/ and credentials/, and index.js): ${shipped.length} files, ` +
			`${lines(sum(shipped))}`,
	);
	for (const { name, file } of ENTRIES) {
		const reached = reachedFrom(file);
		console.log(
			`\n${name} (${file}) reaches ${reached.all.length} files through relative imports, itself ` +
				`included, ${lines(sum(reached.all))}: ${reached.runtime.length} at runtime, ` +
				`${reached.typeOnly.length} only through type-only imports`,
		);
		if (!list) continue;
		for (const path of reached.all) {
			const note = reached.typeOnly.includes(path) ? '  (type-only)' : '';
			console.log(`  ${path}  ${linesOf(path).total}${note}`);
		}
	}
}

if (require.main === module) main();
