/**
 * Scenario 10, masking (issue 51): how long the node's redaction of secrets takes on texts holding a
 * held secret many times, against a plain `replaceAll` of the same text (the floor: one pass that
 * copies the text once). Each case runs at a quarter of its size and at its full size: a masking
 * linear in the text keeps the same ratio at both, a quadratic one multiplies it by about 4. Runs the
 * built redaction (dist/), as n8n would; the output is checked against the plain replace every round.
 */
import { join } from 'node:path';

import type { Secrets as SecretsType } from '../../nodes/VoiceAi/transport/secrets';
import type { Check, ScenarioResult } from '../report';
import { fmt, median, pairedRatio } from '../stats';

const LONG_SECRET = 'Sixteen-Chars-16';
const SIP_PASSWORD = 'p';
/** Linear masking does a few passes where replaceAll does one; quadratic was thousands of times. */
const MAX_RATIO = 25;
/** From a quarter of the size to the whole: linear stays near 1, quadratic goes towards 4. */
const MAX_GROWTH = 2.5;

interface Case {
	name: string;
	/** Builds the text at `scale` (1: the case's full size). */
	text: (scale: number) => string;
	mask: (secrets: SecretsType, text: string) => string;
	secret: string;
}

const CASES: Case[] = [
	{
		name: 'output value, 16-character secret (2 MiB, 116,508 times)',
		text: (scale) => `${LONG_SECRET}, `.repeat(Math.round(116_508 * scale)),
		mask: (secrets, text) => secrets.redactForOutput({ text }).text,
		secret: LONG_SECRET,
	},
	{
		name: 'error body, 1-character SIP password (64 KiB, 32,768 times)',
		text: (scale) => 'p.'.repeat(Math.round(32_768 * scale)),
		mask: (secrets, text) => secrets.redactError(new Error(text)).message,
		secret: SIP_PASSWORD,
	},
	{
		name: 'error body, 1-character SIP password (1 MiB, 524,288 times)',
		text: (scale) => 'p.'.repeat(Math.round(524_288 * scale)),
		mask: (secrets, text) => secrets.redactError(new Error(text)).message,
		secret: SIP_PASSWORD,
	},
];

function loadSecrets(): new () => SecretsType {
	const file = join(__dirname, '..', '..', 'dist', 'nodes', 'VoiceAi', 'transport', 'secrets.js');
	return (require(file) as { Secrets: new () => SecretsType }).Secrets;
}

/** Milliseconds per run of `work`, repeated until at least MIN_MS have passed (small texts too). */
const MIN_MS = 100;
function msPerRun(work: () => unknown): number {
	const start = process.hrtime.bigint();
	let runs = 0;
	let elapsed = 0;
	do {
		work();
		runs++;
		elapsed = Number(process.hrtime.bigint() - start) / 1e6;
	} while (elapsed < MIN_MS);
	return elapsed / runs;
}

export function masking(options: { rounds: number }): ScenarioResult {
	const Secrets = loadSecrets();
	const secrets = new Secrets();
	secrets.add(LONG_SECRET);
	secrets.collect({ directions: [{ options: { sip_password: SIP_PASSWORD } }] });
	const rows: string[][] = [];
	const checks: Check[] = [];
	for (const testCase of CASES) {
		const ratios: number[] = [];
		for (const scale of [0.25, 1]) {
			const text = testCase.text(scale);
			const expected = text.replaceAll(testCase.secret, '***');
			const [masked, plain]: number[][] = [[], []];
			testCase.mask(secrets, text);
			for (let round = 0; round < options.rounds; round++) {
				if (testCase.mask(secrets, text) !== expected)
					throw new Error(`masking differs from replaceAll: ${testCase.name}`);
				masked.push(msPerRun(() => testCase.mask(secrets, text)));
				plain.push(msPerRun(() => text.replaceAll(testCase.secret, '***')));
			}
			const ratio = pairedRatio(masked, plain);
			ratios.push(ratio);
			rows.push([
				testCase.name,
				scale === 1 ? 'full' : 'quarter',
				fmt.mib(text.length),
				fmt.ms1(median(masked)),
				fmt.ms1(median(plain)),
				fmt.ratio(ratio),
			]);
		}
		const [quarter, full] = ratios;
		checks.push(
			{
				name: `Masking / replaceAll: ${testCase.name}`,
				target: `≤ ${MAX_RATIO}x`,
				measured: fmt.ratio(full),
				pass: full <= MAX_RATIO,
			},
			{
				name: `Ratio at full size / at a quarter: ${testCase.name}`,
				target: `≤ ${MAX_GROWTH}x (linear: about 1x)`,
				measured: fmt.ratio(full / quarter),
				pass: full / quarter <= MAX_GROWTH,
			},
		);
	}
	return {
		title: '10. Masking secrets in large texts',
		setup: `The node's redaction (dist/nodes/VoiceAi/transport/secrets.js) of texts holding a held secret many times, against \`replaceAll\` of the same secret in the same text; medians of ${options.rounds} rounds after a warm-up (each the mean of runs repeated for at least ${MIN_MS} ms), ratios per round.`,
		header: ['Case', 'Size', 'Text', 'Masking', 'replaceAll', 'Ratio'],
		rows,
		checks,
		notes: [
			'Before issue 51 each occurrence copied the whole text: the 2 MiB case took 217 s and the 64 KiB one 6 s.',
		],
	};
}
