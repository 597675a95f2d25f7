/**
 * Scenario 4, memory: a Chatbot Update with the largest image the sandbox accepts (5 MiB), each
 * measurement in a fresh child process (bench/memoryChild.ts) so nothing else in the bench skews it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { Check, ScenarioResult } from '../report';
import type { BenchSandbox } from '../sandbox';
import { fmt, median } from '../stats';

const run = promisify(execFile);
const MAX_IMAGE = 5 * 1024 * 1024;

interface ChildResult {
	size: number;
	ok: boolean;
	error?: string;
	httpCode?: string;
	chatbotImage: string | null;
	rssGrowth: number;
	heapExternalGrowth: number;
	maxRssRose: boolean;
}

type Steps = 'node' | 'read' | 'blob' | 'send';

const STEPS_LABEL: Record<Exclude<Steps, 'node'>, string> = {
	read: 'getBinaryDataBuffer only',
	blob: '+ Blob in a FormData',
	send: '+ PATCH with httpRequestWithAuthentication',
};

async function measure(
	sandbox: BenchSandbox,
	size: number,
	steps: Steps = 'node',
): Promise<ChildResult> {
	const args = [
		'--expose-gc',
		'--import',
		'tsx',
		join(__dirname, '..', 'memoryChild.ts'),
		JSON.stringify({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, size, steps }),
	];
	const { stdout } = await run(process.execPath, args, {
		cwd: join(__dirname, '..', '..'),
		env: { ...process.env, N8N_USER_FOLDER: '' },
		maxBuffer: 1 << 20,
	});
	return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildResult;
}

export async function memory(
	sandbox: BenchSandbox,
	options: { rounds: number },
): Promise<ScenarioResult> {
	const results: ChildResult[] = [];
	for (let round = 0; round < options.rounds; round++)
		results.push(await measure(sandbox, MAX_IMAGE));
	// One byte more is refused with 413: 5 MiB is the largest image the sandbox accepts.
	const tooBig = await measure(sandbox, MAX_IMAGE + 1);
	const breakdown: Array<[Exclude<Steps, 'node'>, ChildResult]> = [];
	for (const steps of ['read', 'blob', 'send'] as const)
		breakdown.push([steps, await measure(sandbox, MAX_IMAGE, steps)]);

	const rss = median(results.map((result) => result.rssGrowth));
	const heap = median(results.map((result) => result.heapExternalGrowth));
	const rows = [
		...results.map((result, index) => [`Voice AI node, process ${index + 1}`, result] as const),
		...breakdown.map(([steps, result]) => [`bare steps: ${STEPS_LABEL[steps]}`, result] as const),
	].map(([label, result]) => [
		label,
		result.ok
			? result.chatbotImage
				? `200, chatbot_image ${result.chatbotImage}`
				: 'done'
			: `failed: ${result.error}`,
		fmt.mib(result.rssGrowth),
		fmt.ratio(result.rssGrowth / MAX_IMAGE),
		fmt.mib(result.heapExternalGrowth),
		fmt.ratio(result.heapExternalGrowth / MAX_IMAGE),
	]);
	const checks: Check[] = [
		{
			name: 'Upload of 5 MiB accepted, 5 MiB + 1 byte refused',
			target: '200 and 413',
			measured: `${results.every((r) => r.ok) ? '200' : 'failed'} and ${tooBig.httpCode ?? (tooBig.ok ? '200' : 'error')}`,
			pass: results.every((r) => r.ok) && tooBig.httpCode === '413',
		},
		{
			name: 'Peak RSS growth / file size (median)',
			target: '≤ 3.00x',
			measured: `${fmt.ratio(rss / MAX_IMAGE)} (${fmt.mib(rss)})`,
			pass: rss / MAX_IMAGE <= 3,
		},
		{
			name: 'Peak heap + external growth / file size (median)',
			target: '≤ 3.00x',
			measured: `${fmt.ratio(heap / MAX_IMAGE)} (${fmt.mib(heap)})`,
			pass: heap / MAX_IMAGE <= 3,
		},
	];
	return {
		title: '4. Memory: Chatbot Update with a 5 MiB image',
		setup: `A fresh Node process per measurement runs one Chatbot Update (chatbot_image from the input item's binary property) through n8n's engine against the sandbox in another process. Baseline after two warm-up updates with a 1 KiB image and with the 5 MiB file already in memory; peak sampled every millisecond (RSS, V8 heap used + external) and the kernel's peak RSS. ${options.rounds} processes; n8n's binary data mode is its default (filesystem).`,
		header: [
			'Run (one fresh process each)',
			'Answer',
			'Peak RSS growth',
			'x file size',
			'Peak heap + external growth',
			'x file size',
		],
		rows,
		checks,
		notes: [
			'The growth includes everything n8n does with the file in that run: the input node storing it as binary data, the node reading it back, the multipart body and the HTTP client sending it.',
			'The Voice AI node builds the multipart body as one Buffer and streams the file from n8n\'s binary data store straight into it (getBinaryMetadata for the size, then getBinaryStream), so it holds one copy of the file plus the stream\'s chunks until they are collected. The "bare steps" rows are the usual way for comparison: a minimal node that stops after each step of an upload built from getBinaryDataBuffer, a Blob in a FormData and httpRequestWithAuthentication, once each; they show which step adds which copy of the file.',
		],
	};
}
