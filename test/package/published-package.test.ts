/**
 * The tarball npm would publish, checked by scripts/check-package.mjs: its contents, the metadata npm
 * provenance and n8n's verification read, the community-nodes ESLint rules on the built dist/ and
 * index.js (inline disabling ignored) and the checks of n8n's community-package scanner on the local
 * files. A doctored tarball shows each check refuses what it is there to refuse. The package's main
 * (index.js), required from the unpacked tarball, exports exactly the classes of package.json's `n8n`
 * section. Needs dist/ (`npm run build`).
 */
import {
	appendFileSync,
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { execFileAsync, linkRepoModules, packAndUnpack, root } from './packed';

const script = join(root, 'scripts', 'check-package.mjs');

interface Check {
	name: 'contents' | 'metadata' | 'eslint' | 'scanner';
	passed: boolean;
	details: string[];
}

async function runChecks(
	args: string[] = [],
): Promise<{ code: number; checks: Record<string, Check> }> {
	const result = await execFileAsync(process.execPath, [script, '--json', ...args], {
		cwd: root,
		maxBuffer: 1 << 24,
	}).then(
		(r) => ({ code: 0, stdout: r.stdout }),
		(e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
	);
	const report = JSON.parse(result.stdout.trim().split('\n').pop()!) as { checks: Check[] };
	return { code: result.code, checks: Object.fromEntries(report.checks.map((c) => [c.name, c])) };
}

let work: string;
beforeAll(() => {
	work = mkdtempSync(join(tmpdir(), 'voiceai-package-test-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `npm pack` of the repo, unpacked into `<work>/<name>/package`. */
async function packInto(name: string): Promise<string> {
	const into = join(work, name);
	mkdirSync(into);
	return await packAndUnpack(into);
}

describe("the package's main, required from the tarball", () => {
	let dir: string;
	let pkg: { main?: string; n8n: { nodes: string[]; credentials: string[] } };
	beforeAll(async () => {
		dir = await packInto('main');
		linkRepoModules(dir);
		pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
	}, 120_000);

	/** The class n8n takes from a listed file: the file name up to its first dot. */
	const classOf = (file: string) => file.split('/').pop()!.split('.')[0];
	const listed = () => [...pkg.n8n.nodes, ...pkg.n8n.credentials];

	test('is index.js at the top level', () => {
		expect(pkg.main).toBe('index.js');
	});

	test('exports exactly the classes the n8n section names, as the same constructors as the dist files', () => {
		const main = require(join(dir, pkg.main ?? 'index.js')) as Record<string, unknown>;
		expect(Object.keys(main).sort()).toEqual(listed().map(classOf).sort());
		for (const file of listed()) {
			const fromFile = (require(join(dir, file)) as Record<string, unknown>)[classOf(file)];
			expect(typeof fromFile).toBe('function');
			expect(main[classOf(file)]).toBe(fromFile);
		}
	});

	test('its classes build what n8n loads: nodes with a description, credentials with a name', () => {
		const main = require(join(dir, pkg.main ?? 'index.js')) as Record<string, new () => object>;
		for (const file of pkg.n8n.nodes) {
			const node = new main[classOf(file)]() as { description?: { name?: string } };
			expect(typeof node.description?.name).toBe('string');
		}
		for (const file of pkg.n8n.credentials) {
			const credential = new main[classOf(file)]() as { name?: string };
			expect(typeof credential.name).toBe('string');
		}
	});
});

describe('the tarball npm publishes', () => {
	let result: Awaited<ReturnType<typeof runChecks>>;
	beforeAll(async () => {
		result = await runChecks();
	}, 120_000);

	test.each(['contents', 'metadata', 'eslint', 'scanner'])('%s check passes', (name) => {
		const check = result.checks[name];
		expect(check.passed ? 'passed' : check.details.join('\n')).toBe('passed');
	});

	test('the script exits 0', () => {
		expect(result.code).toBe(0);
	});
});

describe('a doctored tarball', () => {
	let result: Awaited<ReturnType<typeof runChecks>>;
	beforeAll(async () => {
		const dir = await packInto('doctored');

		// Node code that breaks community-node rules, each line excused by an inline comment.
		const node = join(dir, 'dist', 'nodes', 'VoiceAi', 'VoiceAi.node.js');
		appendFileSync(
			node,
			[
				'',
				'// eslint-disable-next-line',
				'setTimeout(() => undefined, 1); // eslint-disable-line',
				'/* eslint-disable */',
				'exports.leak = process.env.VOICEAI_SECRET;',
				'//# sourceMappingURL=VoiceAi.node.js.map',
				'',
			].join('\n'),
		);
		// The package's main, a global timer excused inline: linted like dist/, the comment ignored.
		appendFileSync(
			join(dir, 'index.js'),
			'\nexports.timer = setTimeout(() => undefined, 1); // eslint-disable-line\n',
		);
		// Files that must never ship, and metadata that does not match itself.
		mkdirSync(join(dir, 'sandbox'));
		writeFileSync(join(dir, 'sandbox', 'index.js'), 'module.exports = {};\n');
		copyFileSync(node, join(dir, 'dist', 'nodes', 'VoiceAi', 'VoiceAi.node.js.map'));
		const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<
			string,
			unknown
		>;
		pkg.homepage = 'https://example.com';
		pkg.dependencies = { undici: '8.12.4' };
		writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));

		const doctored = join(work, 'doctored.tgz');
		await execFileAsync('tar', ['-czf', doctored, '-C', join(work, 'doctored'), 'package']);
		result = await runChecks(['--tarball', doctored]);
	}, 120_000);

	test('is refused: exit code 1', () => {
		expect(result.code).toBe(1);
	});

	test('contents: names the stray files and the source map reference', () => {
		expect(result.checks.contents.passed).toBe(false);
		expect(result.checks.contents.details).toEqual(
			expect.arrayContaining([
				'not to be published: sandbox/index.js',
				'not to be published: dist/nodes/VoiceAi/VoiceAi.node.js.map',
				'source map reference in dist/nodes/VoiceAi/VoiceAi.node.js',
			]),
		);
	});

	test('metadata: names the homepage that does not match the repository and the runtime dependency', () => {
		expect(result.checks.metadata.passed).toBe(false);
		expect(result.checks.metadata.details.join('\n')).toMatch(
			/homepage must be https:\/\/github\.com\/.+#readme/,
		);
		expect(result.checks.metadata.details).toContain('runtime dependencies are not allowed');
	});

	test('eslint: the inline disabling comments do not hide the global timer and the env read', () => {
		expect(result.checks.eslint.passed).toBe(false);
		const details = result.checks.eslint.details.join('\n');
		expect(details).toMatch(/VoiceAi\.node\.js:\d+ @n8n\/community-nodes\/no-restricted-globals/);
		expect(details).toMatch(/no-runtime-dependencies/);
	});

	test("eslint and n8n's scanner lint the package's main (index.js), its inline disabling ignored", () => {
		expect(result.checks.eslint.details.join('\n')).toMatch(
			/^index\.js:\d+ @n8n\/community-nodes\/no-restricted-globals/m,
		);
		expect(result.checks.scanner.details.find((d) => d.startsWith('tarball:'))).toMatch(
			/\/package\/index\.js\n.*no-restricted-globals/,
		);
	});

	test("scanner: n8n's scanner refuses the packed files", () => {
		expect(result.checks.scanner.passed).toBe(false);
		expect(result.checks.scanner.details.find((d) => d.startsWith('tarball:'))).toMatch(
			/ESLint violations found/,
		);
	});
});
