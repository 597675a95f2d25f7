/**
 * `npm run bench`: the throughput benchmark of issue 6. Starts one sandbox (its own process), runs the
 * scenarios one after another, prints each table and writes bench/RESULTS.md (never README.md).
 *
 *   npx tsx bench/run.ts [--only overhead,latency,rateLimit,memory,realN8n,queueWorkers,trigger,queueTrigger,passOnce,masking] [--quick] [--no-write]
 *                        [--trigger-settings defaults,likeForLike,lazy]
 *
 * --quick shrinks items and rounds for a smoke run (its numbers are not the benchmark's); --no-write
 * leaves bench/RESULTS.md alone (so does --quick). Each scenario's last result is kept in
 * bench/results.json, and bench/RESULTS.md is written from it, so `--only trigger` replaces the trigger
 * scenario's section and keeps the others. VOICEAI_N8N_DIR must name the real n8n install (scripts/run.sh sets it).
 */
import './env';
import '../harness/nodeSources';

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import type { AnyNodeType } from '../harness/engine';
import { describeEnvironment } from './environment';
import type { ScenarioResult } from './report';
import { checksTable, scenarioMarkdown, textTable } from './report';
import { spawnSandbox } from './sandbox';
import { latencyBound } from './scenarios/latency';
import { masking } from './scenarios/masking';
import { memory } from './scenarios/memory';
import { overhead } from './scenarios/overhead';
import { passOnceCeiling } from './scenarios/passOnceCeiling';
import { queueTrigger } from './scenarios/queueTrigger';
import { queueWorkers } from './scenarios/queueWorkers';
import { rateLimited } from './scenarios/rateLimited';
import { realN8n } from './scenarios/realN8n';
import { triggerVsWebhook } from './scenarios/triggerVsWebhook';
import { TRIGGER_SETTINGS, type TriggerSetting } from './triggerWorkflows';
import { fmt } from './stats';

const ROOT = join(__dirname, '..');
const SCENARIOS = [
	'overhead',
	'latency',
	'rateLimit',
	'memory',
	'realN8n',
	'queueWorkers',
	'trigger',
	'queueTrigger',
	'passOnce',
	'masking',
] as const;
const RESULTS_JSON = join(__dirname, 'results.json');
const RESULTS_MD = join(__dirname, 'RESULTS.md');

interface StoredResult {
	scenario: string;
	ranAt: string;
	commit: string;
	result: ScenarioResult;
}

function loadBuiltNode(): AnyNodeType {
	const file = join(ROOT, 'dist', 'nodes', 'VoiceAi', 'VoiceAi.node.js');
	if (!existsSync(file)) throw new Error('dist/ is missing: build first (npm run bench does)');
	const { VoiceAi } = require(file) as { VoiceAi: new () => AnyNodeType };
	return new VoiceAi();
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			only: { type: 'string' },
			quick: { type: 'boolean' },
			'no-write': { type: 'boolean' },
			'trigger-settings': { type: 'string' },
		},
	});
	const only = values.only ? values.only.split(',') : [...SCENARIOS];
	const triggerSettings = (values['trigger-settings']?.split(',') ??
		Object.keys(TRIGGER_SETTINGS)) as TriggerSetting[];
	for (const setting of triggerSettings) {
		if (!(setting in TRIGGER_SETTINGS))
			throw new Error(
				`unknown trigger setting "${setting}" (known: ${Object.keys(TRIGGER_SETTINGS).join(', ')})`,
			);
	}
	const quick = values.quick === true;
	const n8nDir = process.env.VOICEAI_N8N_DIR;
	if (!n8nDir)
		throw new Error(
			'VOICEAI_N8N_DIR is not set: run `npm run bench` (or export it from scripts/n8n-install.sh)',
		);

	const started = Date.now();
	const environment = describeEnvironment(n8nDir);
	console.log(textTable(['', ''], environment));
	const sandbox = await spawnSandbox();
	const ourNode = loadBuiltNode();
	const results: Array<{ scenario: string; result: ScenarioResult }> = [];
	try {
		for (const name of only) {
			console.log(`\n[bench] ${name} ...`);
			const loadBefore = loadavg()[0];
			let result: ScenarioResult;
			if (name === 'overhead')
				result = await overhead(sandbox, {
					items: quick ? 200 : 2000,
					rounds: quick ? 2 : 5,
					n8nDir,
					ourNode,
				});
			else if (name === 'latency') result = await latencyBound(sandbox, { quick, ourNode });
			else if (name === 'rateLimit')
				result = await rateLimited(sandbox, {
					items: quick ? 120 : 600,
					rateLimit: 50,
					rounds: quick ? 1 : 3,
					ourNode,
				});
			else if (name === 'memory') result = await memory(sandbox, { rounds: quick ? 1 : 3 });
			else if (name === 'realN8n')
				result = await realN8n({ items: quick ? 200 : 1000, rounds: quick ? 2 : 3 });
			else if (name === 'queueWorkers')
				result = await queueWorkers({ deliveries: quick ? 200 : 1000 });
			else if (name === 'trigger')
				result = await triggerVsWebhook({
					settings: triggerSettings,
					rounds: quick ? 2 : 8,
					sequential: quick ? 5 : 10,
					parallel: quick ? 20 : 40,
				});
			else if (name === 'queueTrigger')
				result = await queueTrigger({
					settings: triggerSettings,
					rounds: quick ? 2 : 5,
					sequential: quick ? 5 : 10,
					parallel: quick ? 20 : 40,
				});
			else if (name === 'passOnce')
				result = await passOnceCeiling({ n8nDir, conversations: quick ? 100 : 2000 });
			else if (name === 'masking') result = masking({ rounds: quick ? 2 : 7 });
			else throw new Error(`unknown scenario "${name}" (known: ${SCENARIOS.join(', ')})`);
			result.notes.push(
				`Machine load (1-minute average) at the start and end of this scenario: ${loadBefore.toFixed(1)} and ${loadavg()[0].toFixed(1)}, on ${cpus().length} logical cores.`,
			);
			results.push({ scenario: name, result });
			console.log(
				`\n${result.title}\n${textTable(result.header, result.rows)}\n\n${textTable(
					['Check', 'Target', 'Measured', 'Result'],
					result.checks.map((c) => [c.name, c.target, c.measured, c.pass ? 'pass' : 'FAIL']),
				)}`,
			);
		}
	} finally {
		await sandbox.close();
	}

	const elapsed = Date.now() - started;
	const ranChecks = results.flatMap(({ result }) => result.checks);
	const failed = ranChecks.filter((check) => !check.pass).length;
	console.log(
		`\n[bench] ${ranChecks.length - failed}/${ranChecks.length} checks pass; whole run ${fmt.ms(elapsed)}`,
	);
	if (quick || values['no-write']) return;

	const ranAt = new Date(started).toISOString();
	const commit = environment.find(([key]) => key === 'n8n-nodes-voiceai')?.[1] ?? '';
	const fresh = results.map(({ scenario, result }) => ({ scenario, ranAt, commit, result }));
	const partial = only.length !== SCENARIOS.length;
	if (partial && !existsSync(RESULTS_JSON)) {
		replaceSections(fresh);
		return;
	}
	const stored = new Map<string, StoredResult>();
	if (partial) {
		for (const entry of JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as StoredResult[])
			stored.set(entry.scenario, entry);
	}
	for (const entry of fresh) stored.set(entry.scenario, entry);
	const kept = SCENARIOS.flatMap((scenario) => stored.get(scenario) ?? []);
	writeFileSync(RESULTS_JSON, `${JSON.stringify(kept, null, '\t')}\n`);
	const checks = kept.flatMap((entry) => entry.result.checks);

	const markdown = [
		'# Benchmark results',
		'',
		only.length === SCENARIOS.length
			? `Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString()}; the whole run took ${fmt.ms(elapsed)}.`
			: `Written by \`npm run bench -- --only ${only.join(',')}\` on ${new Date().toISOString()} from bench/results.json: each section says when it ran.`,
		'Each ratio compares runs made in the same run against the same sandbox; what each scenario measures is said at the top of its file in bench/scenarios/.',
		'',
		'## Machine and versions',
		'',
		textTableMarkdown(environment),
		'',
		'## Summary',
		'',
		checksTable(checks),
		'',
		...kept.map(storedMarkdown),
	].join('\n');
	writeFileSync(RESULTS_MD, markdown);
	console.log('[bench] wrote bench/RESULTS.md and bench/results.json');
}

/** A scenario's section, numbered in the order of SCENARIOS and saying when it ran. */
function storedMarkdown(entry: StoredResult): string {
	const number = SCENARIOS.indexOf(entry.scenario as (typeof SCENARIOS)[number]) + 1;
	const when = `Ran ${entry.ranAt.slice(0, 16).replace('T', ' ')} UTC, n8n-nodes-voiceai ${entry.commit}.`;
	return scenarioMarkdown({
		...entry.result,
		title: `${number}. ${entry.result.title.replace(/^\d+\.\s*/, '')}`,
		notes: [...entry.result.notes, when],
	});
}

/**
 * A scenario run alone before bench/results.json existed (RESULTS.md came from a full run of an older
 * bench): replace that scenario's section of RESULTS.md, or add it at the end, and leave the rest.
 */
function replaceSections(entries: StoredResult[]): void {
	const file = RESULTS_MD;
	let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
	text = text.replace(
		/^Generated by `npm run bench` \(bench\/run\.ts\) on (\S+);.*$/m,
		'Sections come from different runs of `npm run bench` (bench/run.ts): each says when it ran and at which commit. The Summary and the machine table are from the last full run, on $1.',
	);
	for (const entry of entries) {
		const section = storedMarkdown(entry);
		const heading = section.slice(0, section.indexOf('\n'));
		const at = text.indexOf(`\n${heading}\n`);
		if (at === -1) {
			text = `${text.trimEnd()}\n\n${section}`;
			continue;
		}
		const next = text.indexOf('\n## ', at + heading.length + 1);
		text = `${text.slice(0, at + 1)}${section}${next === -1 ? '' : text.slice(next)}`;
	}
	writeFileSync(file, text);
	console.log(
		'[bench] replaced the sections of this run in bench/RESULTS.md (the full run writes bench/results.json)',
	);
}

function textTableMarkdown(rows: string[][]): string {
	return ['| | |', '| --- | --- |', ...rows.map(([key, value]) => `| ${key} | ${value} |`)].join(
		'\n',
	);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
