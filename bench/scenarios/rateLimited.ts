/**
 * Scenario 3, rate-limited: onboarding. N Agent Create items against a sandbox limited to R requests
 * per second for the key, with the node's default options. Each round uses a new organization (its own
 * key and rate window, no agents) so the sandbox's state can be checked exactly afterwards.
 *
 * For scale, each round also onboards the same agents with a raw undici client into another new
 * organization: 5 requests in flight, all of them waiting out Retry-After after a 429 and then going
 * on at 5. It shows what this limiter allows a simple well-behaved client on this machine.
 */
import { Pool } from 'undici';

import type { AnyNodeType } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import type { Check, ScenarioResult } from '../report';
import type { BenchSandbox } from '../sandbox';
import { fmt, median, timed } from '../stats';

export interface RateLimitOptions {
	items: number;
	rateLimit: number;
	rounds: number;
	ourNode: AnyNodeType;
}

interface Agent {
	agentName: string;
	phoneNumber: string;
	task: string;
	selectedVoice: string;
}

interface Outcome {
	ms: number;
	waitMs: number;
	agents: number;
	lost: number;
	duplicated: number;
	unexpected: number;
	limited: number;
	outputOk: boolean;
	error?: string;
	/** Median time from a burst's first request to its last, and median idle gap between bursts. */
	burstMs: number;
	pauseMs: number;
}

/** Splits request arrivals into bursts separated by idle gaps of more than 300 ms. */
function bursts(arrivals: number[]): { burstMs: number; pauseMs: number } {
	const sorted = [...arrivals].sort((a, b) => a - b);
	const lengths: number[] = [];
	const gaps: number[] = [];
	let first = sorted[0];
	for (let index = 1; index <= sorted.length; index++) {
		const gap =
			index < sorted.length ? sorted[index] - sorted[index - 1] : Number.POSITIVE_INFINITY;
		if (gap <= 300) continue;
		lengths.push(sorted[index - 1] - first);
		if (index < sorted.length) {
			gaps.push(gap);
			first = sorted[index];
		}
	}
	return { burstMs: median(lengths), pauseMs: median(gaps) };
}

async function onboardWithNode(
	sandbox: BenchSandbox,
	apiKey: string,
	agents: Agent[],
	ourNode: AnyNodeType,
) {
	return await runNode({
		nodeTypes: { 'n8n-nodes-voiceai.voiceAi': ourNode },
		parameters: {
			resource: 'agent',
			operation: 'create',
			agentName: '={{ $json.agentName }}',
			phoneNumber: '={{ $json.phoneNumber }}',
			task: '={{ $json.task }}',
			selectedVoice: '={{ $json.selectedVoice }}',
		},
		credentials: { voiceAiApi: { baseUrl: sandbox.baseUrl, apiKey } },
		items: agents.map((agent) => ({ json: { ...agent } })),
	});
}

async function onboardRaw(sandbox: BenchSandbox, apiKey: string, agents: Agent[]): Promise<void> {
	const pool = new Pool(sandbox.baseUrl, { connections: 5 });
	let next = 0;
	let pausedUntil = 0;
	const worker = async () => {
		while (next < agents.length) {
			const agent = agents[next++];
			for (;;) {
				const wait = pausedUntil - Date.now();
				if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
				const response = await pool.request({
					method: 'POST',
					path: '/callback/standardCampaign',
					headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
					body: JSON.stringify(agent),
				});
				await response.body.text();
				if (response.statusCode === 201) break;
				if (response.statusCode !== 429) throw new Error(`raw onboarding: ${response.statusCode}`);
				pausedUntil = Math.max(
					pausedUntil,
					Date.now() + Number(response.headers['retry-after'] ?? 1) * 1000,
				);
			}
		}
	};
	try {
		await Promise.all(Array.from({ length: 5 }, worker));
	} finally {
		await pool.close();
	}
}

async function inspect(sandbox: BenchSandbox, orgId: string, agents: Agent[]) {
	const state = await sandbox.admin<{ agents: Array<{ agentName: string }> }>(
		'GET',
		`/orgs/${orgId}/state`,
	);
	const log = await sandbox.admin<Array<{ at: string; status: number }>>(
		'GET',
		`/requests?org=${orgId}`,
	);
	const seen = state.agents.map((agent) => agent.agentName);
	const seenSet = new Set(seen);
	const expected = new Set(agents.map((agent) => agent.agentName));
	return {
		agents: seen.length,
		lost: agents.filter((agent) => !seenSet.has(agent.agentName)).length,
		duplicated: seen.length - seenSet.size,
		unexpected: seen.filter((name) => !expected.has(name)).length,
		limited: log.filter((entry) => entry.status === 429).length,
		...bursts(log.map((entry) => Date.parse(entry.at))),
	};
}

export async function rateLimited(
	sandbox: BenchSandbox,
	options: RateLimitOptions,
): Promise<ScenarioResult> {
	const ideal = (options.items / options.rateLimit) * 1000;
	const node: Outcome[] = [];
	const raw: Outcome[] = [];
	await sandbox.configure({ rateLimit: options.rateLimit, latencyMs: 0 });
	try {
		for (let round = 1; round <= options.rounds; round++) {
			const agents: Agent[] = Array.from({ length: options.items }, (_, index) => ({
				agentName: `Bench agent ${round}-${index + 1}`,
				phoneNumber: `+1415800${String(index).padStart(4, '0')}`,
				task: 'Welcome new patients and book a first visit',
				selectedVoice: 'maya',
			}));
			const nodeOrg = await sandbox.newOrg(`Bench onboarding ${round}`);
			const {
				ms,
				waitMs,
				value: result,
			} = await timed(() => onboardWithNode(sandbox, nodeOrg.apiKey, agents, options.ourNode));
			const outputOk =
				!result.error &&
				result.items.length === agents.length &&
				result.items.every((item, index) => item.json.agentName === agents[index].agentName);
			node.push({
				ms,
				waitMs,
				outputOk,
				error: result.error?.message,
				...(await inspect(sandbox, nodeOrg.id, agents)),
			});

			const rawOrg = await sandbox.newOrg(`Bench onboarding raw ${round}`);
			const rawRun = await timed(() => onboardRaw(sandbox, rawOrg.apiKey, agents));
			raw.push({
				ms: rawRun.ms,
				waitMs: rawRun.waitMs,
				outputOk: true,
				...(await inspect(sandbox, rawOrg.id, agents)),
			});
		}
	} finally {
		await sandbox.configure({ rateLimit: 0 });
	}

	const row = (who: string, outcome: Outcome, round: number) => [
		String(round),
		who,
		fmt.ms(outcome.ms),
		fmt.ratio(outcome.ms / ideal),
		String(outcome.agents),
		String(outcome.lost),
		String(outcome.duplicated),
		String(outcome.limited),
		fmt.ms(outcome.burstMs),
		fmt.ms(outcome.pauseMs),
		fmt.share(outcome.waitMs, outcome.ms),
		outcome.outputOk ? `${options.items} in order` : `failed: ${outcome.error ?? 'wrong output'}`,
	];
	const rows = node.flatMap((outcome, index) => [
		row('Voice AI node', outcome, index + 1),
		row('raw undici, 5 in flight', raw[index], index + 1),
	]);
	const wall = median(node.map((outcome) => outcome.ms));
	const rawWall = median(raw.map((outcome) => outcome.ms));
	const sum = (pick: (outcome: Outcome) => number) =>
		node.reduce((total, outcome) => total + pick(outcome), 0);
	const checks: Check[] = [
		{
			name: 'Agents in the sandbox after each node run',
			target: `exactly ${options.items}, the expected names`,
			measured: node.map((outcome) => outcome.agents).join(', '),
			pass: node.every(
				(outcome) =>
					outcome.agents === options.items && outcome.lost === 0 && outcome.unexpected === 0,
			),
		},
		{
			name: 'Lost agents (all node runs)',
			target: '0',
			measured: String(sum((o) => o.lost)),
			pass: sum((o) => o.lost) === 0,
		},
		{
			name: 'Duplicated agents (all node runs)',
			target: '0',
			measured: String(sum((o) => o.duplicated)),
			pass: sum((o) => o.duplicated) === 0,
		},
		{
			name: 'Node output: one item per input, in order',
			target: 'every run',
			measured: `${node.filter((o) => o.outputOk).length} of ${node.length}`,
			pass: node.every((o) => o.outputOk),
		},
		{
			name: 'Node: median wall time / ideal',
			target: `≤ 1.15x (${fmt.ms(ideal * 1.15)})`,
			measured: `${fmt.ratio(wall / ideal)} (${fmt.ms(wall)}; raw client ${fmt.ratio(rawWall / ideal)})`,
			pass: wall / ideal <= 1.15,
		},
	];
	return {
		title: `3. Rate-limited: ${options.items} Agent Create at ${options.rateLimit} requests/s`,
		setup: `${options.items} input items, one Agent Create each (fields from expressions), default node options (Concurrency 5, retries on). The sandbox allows ${options.rateLimit} requests per second per key (fixed one-second windows, 429 with Retry-After past it). Ideal = ${options.items} / ${options.rateLimit} s = ${fmt.ms(ideal)}. ${options.rounds} rounds, each in new organizations; afterwards the organization's agents are read from the sandbox's admin state. Each round also runs the raw undici client described below.`,
		header: [
			'Round',
			'Client',
			'Wall time',
			'Wall / ideal',
			'Agents in sandbox',
			'Lost',
			'Duplicated',
			'429 answers',
			'Median burst',
			'Median pause',
			'Waiting for a CPU',
			'Output',
		],
		rows,
		checks,
		notes: [
			'Raw undici client: 5 requests in flight; after a 429 every request waits until Retry-After has passed, then the same request is sent again. No engine, no expressions. It is the floor for this limiter on this machine.',
			'Burst and pause come from the arrival times in the sandbox\'s request log: a burst is a run of requests with no gap over 300 ms (about one rate window), a pause the idle time between two bursts. The sandbox answers 429 with Retry-After in whole seconds (at least 1), so each window costs about 1 s of waiting after its 429 plus the time the client needs to send the window\'s requests; the ideal needs that burst to stay short. "Waiting for a CPU": share of the wall time the JavaScript thread was ready to run but the cores were busy with other work.',
		],
	};
}
