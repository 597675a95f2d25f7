/**
 * Scenario 2, latency-bound: a SIP audit. 1,000 numbers are seeded into an organization of their own,
 * the sandbox waits 100 ms before answering each request, and the Voice AI node reads them all
 * (SIP Get, one item per number) at Concurrency 1, 10 and 20. Ideal: items x latency / concurrency.
 * For scale, the same reads also run at 10 and 20 in flight through the bare reference node (the
 * engine's floor, alternating with the node) and once through a raw undici pool (the wire's floor).
 */
import { Pool } from 'undici';

import type { AnyNodeType } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import { BareReference, REFERENCE_TYPE } from '../referenceNode';
import type { Check, ScenarioResult } from '../report';
import type { BenchSandbox } from '../sandbox';
import { fmt, median, pairedRatio, timed } from '../stats';

const LATENCY_MS = 100;
const NUMBERS = 1000;

export interface LatencyOptions {
	quick: boolean;
	ourNode: AnyNodeType;
}

type Client = 'node' | 'reference' | 'undici';

const CLIENT_LABEL: Record<Client, string> = {
	node: 'Voice AI node',
	reference: 'bare reference node (floor)',
	undici: 'raw undici pool (floor)',
};

export async function latencyBound(
	sandbox: BenchSandbox,
	options: LatencyOptions,
): Promise<ScenarioResult> {
	const numbers = Array.from(
		{ length: NUMBERS },
		(_, index) => `+1415700${String(index).padStart(4, '0')}`,
	);
	const org = await sandbox.newOrg('Bench SIP audit');
	await sandbox.admin('POST', `/orgs/${org.id}/seed`, {
		sip: numbers.map((phone_number) => ({ phone_number, trunkName: 'bench-trunk' })),
	});
	const credentials = { voiceAiApi: { baseUrl: sandbox.baseUrl, apiKey: org.apiKey } };
	const nodeTypes = {
		'n8n-nodes-voiceai.voiceAi': options.ourNode,
		[REFERENCE_TYPE]: new BareReference(),
	};

	const checkOrder = (phones: unknown[], items: number, what: string) => {
		if (phones.length !== items || phones.some((phone, index) => phone !== numbers[index])) {
			throw new Error(`${what}: output is not the ${items} numbers in input order`);
		}
	};
	const read = async (client: Client, items: number, concurrency: number): Promise<void> => {
		const what = `${CLIENT_LABEL[client]} at ${concurrency} in flight`;
		const input = numbers.slice(0, items).map((phoneNumber) => ({ json: { phoneNumber } }));
		if (client === 'undici') {
			const pool = new Pool(sandbox.baseUrl, { connections: concurrency });
			const phones: unknown[] = new Array(items);
			let next = 0;
			const worker = async () => {
				while (next < items) {
					const index = next++;
					const response = await pool.request({
						method: 'GET',
						path: `/sip/${encodeURIComponent(numbers[index])}`,
						headers: { authorization: `Bearer ${org.apiKey}` },
					});
					phones[index] = ((await response.body.json()) as { phone_number?: string }).phone_number;
				}
			};
			await Promise.all(Array.from({ length: concurrency }, worker)).finally(() => pool.close());
			return checkOrder(phones, items, what);
		}
		const result = await runNode({
			nodeType: client === 'node' ? 'n8n-nodes-voiceai.voiceAi' : REFERENCE_TYPE,
			nodeTypes,
			credentials,
			items: input,
			parameters:
				client === 'node'
					? {
							resource: 'sip',
							operation: 'get',
							phoneNumber: '={{ $json.phoneNumber }}',
							options: { concurrency },
						}
					: { path: "={{ '/sip/' + encodeURIComponent($json.phoneNumber) }}", concurrency },
		});
		if (result.error) throw new Error(`${what} failed: ${result.error.message}`);
		checkOrder(
			result.items.map((item) => item.json.phone_number),
			items,
			what,
		);
	};

	// At Concurrency 1 the full 1,000 would take 100 s per round; 200 items keep the same per-item
	// measurement (the ideal scales with the items) within the time budget. The node and the bare
	// reference alternate round by round, so drifting machine load hits both alike.
	const full = options.quick ? 200 : NUMBERS;
	const rounds = options.quick ? 1 : 3;
	const groups: Array<{ concurrency: number; items: number; clients: Client[] }> = [
		{ concurrency: 1, items: options.quick ? 20 : 200, clients: ['node'] },
		{ concurrency: 10, items: full, clients: ['node', 'reference'] },
		{ concurrency: 20, items: full, clients: ['node', 'reference'] },
	];

	await sandbox.configure({ latencyMs: LATENCY_MS });
	const rows: string[][] = [];
	const checks: Check[] = [];
	let requestsOk = true;
	let requestsSeen = 0;
	let requestsExpected = 0;
	const measureOnce = async (client: Client, items: number, concurrency: number) => {
		await sandbox.admin('DELETE', '/requests');
		const started = Date.now();
		const { ms, cpuMs, waitMs } = await timed(() => read(client, items, concurrency));
		const log = await sandbox.admin<Array<{ at: string; status: number }>>(
			'GET',
			`/requests?org=${org.id}`,
		);
		if (client === 'node') {
			requestsSeen += log.length;
			requestsExpected += items;
			requestsOk &&= log.length === items && log.every((entry) => entry.status === 200);
		}
		return {
			ms,
			cpuMs,
			waitMs,
			first: Math.min(...log.map((entry) => Date.parse(entry.at))) - started,
		};
	};
	const row = (
		client: Client,
		concurrency: number,
		items: number,
		runs: Array<{ ms: number; cpuMs: number; waitMs: number; first: number }>,
		vsFloor: string,
	) => {
		const ideal = (items * LATENCY_MS) / concurrency;
		const wall = median(runs.map((run) => run.ms));
		rows.push([
			CLIENT_LABEL[client],
			String(concurrency),
			String(items),
			String(runs.length),
			fmt.ms(ideal),
			fmt.ms(wall),
			fmt.ratio(wall / ideal),
			vsFloor,
			fmt.ms(median(runs.map((run) => run.first))),
			`${(median(runs.map((run) => run.cpuMs)) / items).toFixed(2)} ms`,
			fmt.share(median(runs.map((run) => run.waitMs)), wall),
		]);
		return wall / ideal;
	};
	try {
		await read('node', 20, 10); // warm-up
		await read('reference', 20, 10);
		for (const group of groups) {
			const runs: Record<
				string,
				Array<{ ms: number; cpuMs: number; waitMs: number; first: number }>
			> = { node: [], reference: [], undici: [] };
			for (let round = 0; round < rounds; round++) {
				for (const client of round % 2 ? [...group.clients].reverse() : group.clients) {
					runs[client].push(await measureOnce(client, group.items, group.concurrency));
				}
			}
			if (group.concurrency > 1)
				runs.undici.push(await measureOnce('undici', group.items, group.concurrency));
			const hasFloor = runs.reference.length > 0;
			const vsFloor = hasFloor
				? fmt.ratio(
						pairedRatio(
							runs.node.map((run) => run.ms),
							runs.reference.map((run) => run.ms),
						),
					)
				: '';
			const ratio = row('node', group.concurrency, group.items, runs.node, vsFloor);
			if (hasFloor) row('reference', group.concurrency, group.items, runs.reference, '1.00x');
			if (runs.undici.length) row('undici', group.concurrency, group.items, runs.undici, '');
			checks.push({
				name: `Concurrency ${group.concurrency}: wall time / ideal`,
				target: '≤ 1.20x',
				measured: fmt.ratio(ratio),
				pass: ratio <= 1.2,
			});
		}
		checks.push({
			name: 'Node requests: one 200 per item, no repeats',
			target: String(requestsExpected),
			measured: String(requestsSeen),
			pass: requestsOk && requestsSeen === requestsExpected,
		});
	} finally {
		await sandbox.configure({ latencyMs: 0 });
	}

	return {
		title: `2. Latency-bound: SIP audit with ${LATENCY_MS} ms service latency`,
		setup: `${NUMBERS} numbers seeded with the admin seed API into an organization of their own; the sandbox waits ${LATENCY_MS} ms before handling each request. One Voice AI SIP Get per input item (phone number from an expression), output checked to be every number in input order. Ideal = items x ${LATENCY_MS} ms / concurrency.`,
		header: [
			'Client',
			'In flight',
			'Items',
			'Rounds',
			'Ideal',
			'Median wall time',
			'Wall / ideal',
			'Wall / engine floor',
			'Start to first request',
			'CPU per item',
			'Waiting for a CPU',
		],
		rows,
		checks,
		notes: [
			'Concurrency 1 reads 200 of the numbers instead of 1,000 so that it takes 20 s a round instead of 100 s; the ideal is computed for the items actually read, so the ratio means the same thing.',
			'Floors: the bare reference node (path from an expression, a plain pool of workers calling httpRequestWithAuthentication, same number in flight) is what n8n\'s engine and request helper allow on this machine; it alternates with the node round by round and "Wall / engine floor" is the median of the per-round ratios. The raw undici pool (one run) is the sandbox and the wire alone.',
			'"Start to first request" is the time from starting the run to the first request reaching the sandbox (for the engine: the workflow starting, the input node, and for the Voice AI node the resolving and validating of every item before any is sent). "CPU per item" is this process\'s CPU time divided by the items: at 20 in flight and 100 ms an item must be finished every 5 ms of wall time, so CPU per item shows how close the client itself is to being the limit on a shared machine. "Waiting for a CPU" is the share of the wall time the JavaScript thread was ready to run but the machine\'s cores were busy with other work (Linux schedstat run-queue time).',
		],
	};
}
