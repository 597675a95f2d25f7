/**
 * Scenario 2, latency-bound: a SIP audit. 1,000 numbers are seeded into an organization of their own,
 * the sandbox waits 100 ms before answering each request, and the Voice AI node reads them all
 * (SIP Get, one item per number) at Concurrency 1, 10 and 20. Ideal: items x latency / concurrency.
 */
import type { AnyNodeType } from '../../test/engine';
import { runNode } from '../../test/engine';
import type { Check, ScenarioResult } from '../report';
import type { BenchSandbox } from '../sandbox';
import { fmt, median, timed } from '../stats';

const LATENCY_MS = 100;
const NUMBERS = 1000;

export interface LatencyOptions {
	quick: boolean;
	ourNode: AnyNodeType;
}

interface Setting {
	concurrency: number;
	items: number;
	rounds: number;
}

export async function latencyBound(sandbox: BenchSandbox, options: LatencyOptions): Promise<ScenarioResult> {
	const numbers = Array.from({ length: NUMBERS }, (_, index) => `+1415700${String(index).padStart(4, '0')}`);
	const org = await sandbox.newOrg('Bench SIP audit');
	await sandbox.admin('POST', `/orgs/${org.id}/seed`, { sip: numbers.map((phone_number) => ({ phone_number, trunkName: 'bench-trunk' })) });
	const credentials = { voiceAiApi: { baseUrl: sandbox.baseUrl, apiKey: org.apiKey } };

	// At Concurrency 1 the full 1,000 would take 100 s per round; 200 items keep the same per-item
	// measurement (the ideal scales with the items) within the time budget.
	const settings: Setting[] = options.quick
		? [{ concurrency: 1, items: 20, rounds: 1 }, { concurrency: 10, items: 200, rounds: 1 }, { concurrency: 20, items: 200, rounds: 1 }]
		: [{ concurrency: 1, items: 200, rounds: 3 }, { concurrency: 10, items: NUMBERS, rounds: 3 }, { concurrency: 20, items: NUMBERS, rounds: 3 }];

	const audit = async (items: number, concurrency: number): Promise<void> => {
		const result = await runNode({
			nodeTypes: { 'n8n-nodes-voiceai.voiceAi': options.ourNode },
			parameters: { resource: 'sip', operation: 'get', phoneNumber: '={{ $json.phoneNumber }}', options: { concurrency } },
			credentials,
			items: numbers.slice(0, items).map((phoneNumber) => ({ json: { phoneNumber } })),
		});
		if (result.error) throw new Error(`SIP audit at concurrency ${concurrency} failed: ${result.error.message}`);
		const inOrder = result.items.length === items && result.items.every((item, index) => item.json.phone_number === numbers[index]);
		if (!inOrder) throw new Error(`SIP audit at concurrency ${concurrency}: output is not the ${items} numbers in input order`);
	};

	await sandbox.configure({ latencyMs: LATENCY_MS });
	const rows: string[][] = [];
	const checks: Check[] = [];
	let requestsOk = true;
	let requestsSeen = 0;
	let requestsExpected = 0;
	try {
		await audit(20, 10); // warm-up
		for (const setting of settings) {
			const walls: number[] = [];
			const cpus: number[] = [];
			const firstRequest: number[] = [];
			for (let round = 0; round < setting.rounds; round++) {
				await sandbox.admin('DELETE', '/requests');
				const started = Date.now();
				const { ms, cpuMs } = await timed(() => audit(setting.items, setting.concurrency));
				const log = await sandbox.admin<Array<{ at: string; status: number }>>('GET', `/requests?org=${org.id}`);
				walls.push(ms);
				cpus.push(cpuMs);
				firstRequest.push(Math.min(...log.map((entry) => Date.parse(entry.at))) - started);
				requestsSeen += log.length;
				requestsExpected += setting.items;
				requestsOk &&= log.length === setting.items && log.every((entry) => entry.status === 200);
			}
			const ideal = (setting.items * LATENCY_MS) / setting.concurrency;
			const ratio = median(walls) / ideal;
			rows.push([
				String(setting.concurrency),
				String(setting.items),
				String(setting.rounds),
				fmt.ms(ideal),
				fmt.ms(median(walls)),
				fmt.ratio(ratio),
				fmt.ms(median(firstRequest)),
				`${(median(cpus) / setting.items).toFixed(2)} ms`,
			]);
			checks.push({ name: `Concurrency ${setting.concurrency}: wall time / ideal`, target: '≤ 1.20x', measured: fmt.ratio(ratio), pass: ratio <= 1.2 });
		}
		checks.push({
			name: 'Requests: one 200 per item, no repeats',
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
		header: ['Concurrency', 'Items', 'Rounds', 'Ideal', 'Median wall time', 'Wall / ideal', 'Start to first request', 'CPU per item'],
		rows,
		checks,
		notes: [
			'Concurrency 1 reads 200 of the numbers instead of 1,000 so that it takes 20 s a round instead of 100 s; the ideal is computed for the items actually read, so the ratio means the same thing.',
			'"Start to first request" is the time from starting the workflow to the first request reaching the sandbox (the engine starting, the input node, and the node resolving and validating every item before it sends any). "CPU per item" is this process\'s CPU time divided by the items: at Concurrency 20 the node must finish an item every 5 ms of wall time, so CPU per item shows how close the client itself is to being the limit.',
		],
	};
}
