/**
 * Scenario 1, overhead: the same authenticated read (SIP Get of one number) for N items through n8n's
 * engine with our node, the bare reference node, n8n's HTTP Request node, and a raw undici loop.
 * Every round runs each variant once (order rotated); the table shows medians over the rounds.
 */
import { Pool } from 'undici';

import type { AnyNodeType } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import { HTTP_REQUEST_TYPE, loadHttpRequestNode } from '../httpRequestNode';
import { BareReference, REFERENCE_TYPE } from '../referenceNode';
import type { Check, ScenarioResult } from '../report';
import type { BenchSandbox } from '../sandbox';
import { fmt, median, pairedRatio, rotate, timed } from '../stats';

const NUMBER = '+14155550101';
const PATH = `/sip/${encodeURIComponent(NUMBER)}`;

interface Variant {
	key: string;
	label: string;
	run: () => Promise<number>;
}

export interface OverheadOptions {
	items: number;
	rounds: number;
	n8nDir: string;
	/** Our node's own dist build, as published (defaults to the harness's TypeScript source). */
	ourNode?: AnyNodeType;
}

export async function overhead(
	sandbox: BenchSandbox,
	options: OverheadOptions,
): Promise<ScenarioResult> {
	const credentials = { voiceAiApi: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey } };
	const items = Array.from({ length: options.items }, () => ({ json: {} }));
	const http = loadHttpRequestNode(options.n8nDir);
	const nodeTypes = {
		[REFERENCE_TYPE]: new BareReference(),
		[HTTP_REQUEST_TYPE]: http.node,
		...(options.ourNode ? { 'n8n-nodes-voiceai.voiceAi': options.ourNode } : {}),
	};

	const engine = async (nodeType: string, parameters: Record<string, unknown>): Promise<number> => {
		const result = await runNode({
			nodeType,
			nodeTypes,
			parameters: parameters as never,
			credentials,
			items,
		});
		if (result.error) throw new Error(`${nodeType} failed: ${result.error.message}`);
		if (
			result.items.length !== options.items ||
			result.items[options.items - 1].json.phone_number !== NUMBER
		) {
			throw new Error(
				`${nodeType} returned ${result.items.length} items, expected ${options.items} SIP records`,
			);
		}
		return result.items.length;
	};
	const ours = (concurrency: number) => async () =>
		await engine('n8n-nodes-voiceai.voiceAi', {
			resource: 'sip',
			operation: 'get',
			phoneNumber: NUMBER,
			options: { concurrency },
		});

	const pool = new Pool(sandbox.baseUrl, { connections: 1 });
	const undiciLoop = async (): Promise<number> => {
		let count = 0;
		for (let item = 0; item < options.items; item++) {
			const response = await pool.request({
				method: 'GET',
				path: PATH,
				headers: { authorization: `Bearer ${sandbox.apiKey}` },
			});
			const body = (await response.body.json()) as { phone_number?: string };
			if (response.statusCode !== 200 || body.phone_number !== NUMBER)
				throw new Error(`undici: ${response.statusCode}`);
			count++;
		}
		return count;
	};

	const variants: Variant[] = [
		{ key: 'undici', label: '(c) raw undici loop, 1 connection, sequential', run: undiciLoop },
		{
			key: 'reference',
			label: '(a) bare reference node (httpRequestWithAuthentication), sequential',
			run: async () => await engine(REFERENCE_TYPE, { path: PATH }),
		},
		{
			key: 'http',
			label: `(b) n8n HTTP Request node ${http.node.currentVersion} (n8n-nodes-base ${http.version}), its default: all items at once`,
			run: async () =>
				await engine(HTTP_REQUEST_TYPE, {
					method: 'GET',
					url: `${sandbox.baseUrl}${PATH}`,
					authentication: 'predefinedCredentialType',
					nodeCredentialType: 'voiceAiApi',
					options: {},
				}),
		},
		{ key: 'ours1', label: 'Voice AI node, SIP Get, Concurrency 1', run: ours(1) },
		{ key: 'ours5', label: 'Voice AI node, SIP Get, default Concurrency (5)', run: ours(5) },
		{ key: 'ours50', label: 'Voice AI node, SIP Get, Concurrency 50 (its maximum)', run: ours(50) },
		{
			key: 'reference50',
			label: '(a) bare reference node, 50 in flight',
			run: async () => await engine(REFERENCE_TYPE, { path: PATH, concurrency: 50 }),
		},
	];

	// One warm-up round (JIT, connection pools, lazy requires), then counted rounds.
	for (const variant of variants) await variant.run();
	const times: Record<string, number[]> = Object.fromEntries(
		variants.map((variant) => [variant.key, []]),
	);
	const cpu: Record<string, number[]> = Object.fromEntries(
		variants.map((variant) => [variant.key, []]),
	);
	const wait: Record<string, number[]> = Object.fromEntries(
		variants.map((variant) => [variant.key, []]),
	);
	for (let round = 0; round < options.rounds; round++) {
		for (const variant of rotate(variants, round)) {
			const { ms, cpuMs, waitMs } = await timed(variant.run);
			times[variant.key].push(ms);
			cpu[variant.key].push(cpuMs);
			wait[variant.key].push(waitMs);
		}
	}

	// Every variant really made its requests: count them in the sandbox's log for one more run each.
	const requestCounts: Record<string, number> = {};
	for (const variant of variants) {
		await sandbox.admin('DELETE', '/requests');
		await variant.run();
		const log = await sandbox.admin<Array<{ path: string; status: number }>>(
			'GET',
			'/requests?org=org_acme',
		);
		requestCounts[variant.key] = log.filter(
			(entry) => entry.path === PATH && entry.status === 200,
		).length;
	}
	await pool.close();

	const base = times.reference;
	const rows = variants.map((variant) => {
		const values = times[variant.key];
		return [
			variant.label,
			fmt.ms(median(values)),
			`${(median(values) / options.items).toFixed(3)} ms`,
			fmt.ratio(pairedRatio(values, base)),
			fmt.ratio(pairedRatio(values, times.http)),
			`${(median(cpu[variant.key]) / options.items).toFixed(3)} ms`,
			fmt.ratio(pairedRatio(cpu[variant.key], cpu.reference)),
			fmt.share(median(wait[variant.key]), median(values)),
			String(requestCounts[variant.key]),
		];
	});
	// Each pair compares like with like: sequential with sequential, each node's default with the other's.
	const vsReference = pairedRatio(times.ours1, base);
	const vsHttpDefault = pairedRatio(times.ours5, times.http);
	const checks: Check[] = [
		{
			name: 'Ours (Concurrency 1) / bare reference (a), both sequential',
			target: '≤ 1.15x',
			measured: fmt.ratio(vsReference),
			pass: vsReference <= 1.15,
		},
		{
			name: 'Ours (default Concurrency 5) / HTTP Request node (b) (its default)',
			target: '≤ 1.00x',
			measured: fmt.ratio(vsHttpDefault),
			pass: vsHttpDefault <= 1,
		},
		{
			name: 'Requests that reached the sandbox, per variant',
			target: `${options.items} each`,
			measured: Object.values(requestCounts).join(', '),
			pass: Object.values(requestCounts).every((count) => count === options.items),
		},
	];
	return {
		title: `1. Overhead: ${options.items} SIP Get requests through n8n's engine`,
		setup: `${options.items} input items, each one GET ${PATH} with the same voiceAiApi credential (Authorization: Bearer). Sandbox at 0 ms latency in its own process. ${options.rounds} rounds after one warm-up round, variants in rotated order each round; times are medians, ratios are medians of the per-round ratios.`,
		header: [
			'Variant',
			'Median wall time',
			'Wall per item',
			'Wall vs (a)',
			'Wall vs (b)',
			'CPU per item',
			'CPU vs (a)',
			'Waiting for a CPU',
			'Requests seen by sandbox',
		],
		rows,
		checks,
		notes: [
			'Wall time is what the targets are about. CPU is this process\'s user + system time for the same runs (the sandbox runs in another process); it moves much less than wall time when other work shares the machine, so it shows whether a wall-time gap is the node\'s own cost. "Waiting for a CPU" is the share of the wall time the JavaScript thread was ready to run but the cores were busy with other work (Linux schedstat run-queue time).',
			"The engine variants include what n8n does around a node for every run: building the workflow, the input node emitting the items, parameter resolution and the credential's authenticate function for every request. (a) and (b) also have n8n load the credential for every request: the harness decrypts it, applies its defaults and resolves its expressions each time, as n8n's credentials helper does (n8n also reads it from its database each time, which the harness leaves out). The Voice AI node reads the credential once per execution and hands it to every request (the credentialsDecrypted option of httpRequestWithAuthentication), which is why it can be cheaper than (a).",
			'n8n\'s HTTP Request node has no sequential mode: it starts every item\'s request before awaiting any (its "Batching" option only spaces out the starts), so (b) is its default, all items in flight at once. The rows at 50 in flight show how much of a gap to (b) is that unbounded start rather than a node\'s own work: the bare reference at 50 in flight is what a node calling httpRequestWithAuthentication per item costs at that concurrency. For the same reason the target against (b) is for the node\'s default Concurrency; at Concurrency 1 (one request at a time, no overlap with the sandbox) the "Wall vs (b)" column shows the cost of going one by one.',
		],
	};
}
