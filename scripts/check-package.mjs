#!/usr/bin/env node
/**
 * Checks the package exactly as npm would publish it (`npm run check:package`, and a unit suite in
 * `npm test`). Build first; it packs the repo itself unless given a tarball.
 *
 *   node scripts/check-package.mjs [--tarball FILE] [--json] [--repository OWNER/NAME] [--tag vX.Y.Z]
 *
 * - contents:  the tarball holds package.json, README.md, LICENSE, index.js (the package's main) and
 *              dist/ (compiled .js, icons, node codex .json) and nothing else: no sources, tests,
 *              sandbox, source maps or local paths.
 * - metadata:  repository, bugs, homepage and author name the same GitHub repository; MIT; the n8n
 *              keyword; no runtime dependencies; main is index.js. --repository / --tag: the repository and the git tag a
 *              release is published from must match (the publish workflow passes both).
 * - eslint:    @n8n/eslint-plugin-community-nodes' recommended rules on the unpacked dist/, index.js
 *              and package.json, inline eslint-disable comments ignored.
 * - scanner:   the checks of @n8n/scan-community-package (what n8n runs on a submitted package) on the
 *              local files: its source leg on nodes/, credentials/, index.js and package.json, its
 *              tarball leg on the packed .js (index.js included) and package.json. Its provenance check needs a published version: the
 *              publish workflow publishes with --provenance.
 * Exit code 1 when any check fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

const { values: args } = parseArgs({
	options: {
		tarball: { type: 'string' },
		json: { type: 'boolean' },
		repository: { type: 'string' },
		tag: { type: 'string' },
	},
	strict: true,
});

// eslint-plugin-n8n-nodes-base (the scanner's) treats every file as "Test.node.ts" when NODE_ENV is
// "test", as it is under jest: its filename rules would then judge every node by the wrong name.
if (process.env.NODE_ENV === 'test') delete process.env.NODE_ENV;

const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE', 'index.js'];
const MAIN = 'index.js';
const DIST_FILE = /^dist\/(nodes|credentials)\/[\w./-]+\.(js|svg|png|json)$/;

function pack(into) {
	const out = execFileSync(
		'npm',
		['pack', '--json', '--ignore-scripts', '--pack-destination', into],
		{
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	return join(into, JSON.parse(out)[0].filename);
}

function filesUnder(dir) {
	return readdirSync(dir, { recursive: true })
		.map((name) => join(dir, name))
		.filter((file) => statSync(file).isFile());
}

function checkContents(unpacked, pkg) {
	const problems = [];
	const files = filesUnder(unpacked).map((file) => relative(unpacked, file));
	for (const file of files) {
		if (ALWAYS_SHIPPED.includes(file)) continue;
		if (!DIST_FILE.test(file)) problems.push(`not to be published: ${file}`);
		else if (file.endsWith('.json') && !file.endsWith('.node.json'))
			problems.push(`not a node codex file: ${file}`);
	}
	for (const needed of [...ALWAYS_SHIPPED, ...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
		if (!files.includes(needed)) problems.push(`missing: ${needed}`);
	}
	// A source map or a build path would publish where the package was built.
	const localPaths = [root, tmpdir(), process.env.HOME].filter((p) => p && p.length > 1);
	for (const file of files.filter((f) => /\.(js|json)$/.test(f))) {
		const text = readFileSync(join(unpacked, file), 'utf8');
		if (text.includes('sourceMappingURL')) problems.push(`source map reference in ${file}`);
		const leaked = localPaths.find((p) => text.includes(p));
		if (leaked) problems.push(`local path ${leaked} in ${file}`);
	}
	return {
		passed: problems.length === 0,
		details: problems.length ? problems : [`${files.length} files`],
	};
}

function githubRepository(pkg) {
	const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const match = /^git\+https:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)\.git$/.exec(url ?? '');
	return match ? { owner: match[1], name: match[2] } : undefined;
}

function checkMetadata(pkg) {
	const problems = [];
	const repo = githubRepository(pkg);
	if (!repo) {
		problems.push(
			'repository.url must be git+https://github.com/OWNER/NAME.git (npm provenance and n8n verification read it)',
		);
	} else {
		const web = `https://github.com/${repo.owner}/${repo.name}`;
		if (pkg.homepage !== `${web}#readme`)
			problems.push(`homepage must be ${web}#readme, is ${pkg.homepage}`);
		if (pkg.bugs?.url !== `${web}/issues`)
			problems.push(`bugs.url must be ${web}/issues, is ${pkg.bugs?.url}`);
		if (pkg.author?.url !== `https://github.com/${repo.owner}`) {
			problems.push(`author.url must be https://github.com/${repo.owner}, is ${pkg.author?.url}`);
		}
		if (args.repository && args.repository !== `${repo.owner}/${repo.name}`) {
			problems.push(
				`published from ${args.repository} but package.json names ${repo.owner}/${repo.name}`,
			);
		}
	}
	if (!pkg.author?.name || !pkg.author?.email) problems.push('author needs a name and an email');
	if (pkg.license !== 'MIT') problems.push(`license must be MIT, is ${pkg.license}`);
	if (!pkg.keywords?.includes('n8n-community-node-package'))
		problems.push('keyword n8n-community-node-package is missing');
	if (Object.keys(pkg.dependencies ?? {}).length)
		problems.push('runtime dependencies are not allowed');
	if (pkg.main !== MAIN) problems.push(`main must be ${MAIN}, is ${pkg.main}`);
	if (args.tag && args.tag !== `v${pkg.version}`)
		problems.push(`tag ${args.tag} does not match version ${pkg.version}`);
	return {
		passed: problems.length === 0,
		details: problems.length ? problems : [repo ? `${repo.owner}/${repo.name}` : ''],
	};
}

async function checkEslintPlugin(unpacked) {
	const { ESLint } = require('eslint');
	const { n8nCommunityNodesPlugin } = require('@n8n/eslint-plugin-community-nodes');
	const parser = require('@typescript-eslint/parser');
	const eslint = new ESLint({
		cwd: unpacked,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: [
			n8nCommunityNodesPlugin.configs.recommended,
			{ files: ['**/*.json'], languageOptions: { parser } },
		],
	});
	const files = [
		'package.json',
		MAIN,
		...filesUnder(join(unpacked, 'dist')).filter((f) => f.endsWith('.js')),
	];
	const results = await eslint.lintFiles(files.map((f) => resolve(unpacked, f)));
	const errors = results.flatMap((r) =>
		r.messages
			.filter((m) => m.severity === 2)
			.map((m) => `${relative(unpacked, r.filePath)}:${m.line} ${m.ruleId ?? ''} ${m.message}`),
	);
	return {
		passed: errors.length === 0,
		details: errors.length ? errors : [`${results.length} files`],
	};
}

async function checkScanner(unpacked) {
	const scannerFile = join(
		dirname(require.resolve('@n8n/scan-community-package/package.json')),
		'scanner',
		'scanner.mjs',
	);
	// The scanner makes a temporary folder (for downloads) when loaded; have its tmp remove it on exit.
	createRequire(scannerFile)('tmp').setGracefulCleanup();
	const scanner = await import(pathToFileURL(scannerFile).href);
	// Its source patterns are nodes/, credentials/ and package.json; the package's main ships too.
	const source = await scanner.analyzePackage(root, [...scanner.SOURCE_FILE_PATTERNS, MAIN]);
	const tarball = await scanner.analyzePackage(unpacked, ['**/*.js', 'package.json']);
	const details = [];
	for (const [leg, result] of [
		['source', source],
		['tarball', tarball],
	]) {
		details.push(
			`${leg}: ${result.passed ? 'passed' : `${result.message}\n${result.details ?? ''}`}`,
		);
	}
	return { passed: source.passed && tarball.passed, details };
}

async function main() {
	const work = mkdtempSync(join(tmpdir(), 'voiceai-check-package-'));
	try {
		const tarball = args.tarball ? resolve(args.tarball) : pack(work);
		const unpacked = join(work, 'package');
		mkdirSync(unpacked, { recursive: true });
		execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
		const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
		const checks = [
			{ name: 'contents', ...checkContents(unpacked, pkg) },
			{ name: 'metadata', ...checkMetadata(pkg) },
			{ name: 'eslint', ...(await checkEslintPlugin(unpacked)) },
			{ name: 'scanner', ...(await checkScanner(unpacked)) },
		];
		if (args.json)
			process.stdout.write(`${JSON.stringify({ tarball: args.tarball ?? 'packed', checks })}\n`);
		else {
			for (const check of checks) {
				process.stdout.write(
					`${check.passed ? 'ok  ' : 'FAIL'} ${check.name}: ${check.details.join('\n     ')}\n`,
				);
			}
		}
		process.exitCode = checks.every((check) => check.passed) ? 0 : 1;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

await main();
