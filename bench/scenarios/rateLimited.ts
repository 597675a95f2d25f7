/**
 * Scenario 3, rate-limited: onboarding. N Agent Create items against a sandbox limited to R requests
 * per second for the key, with the node's default options. Each round uses a new organization (its own
 * key and rate window, no agents) so the sandbox's state can be checked exactly afterwards.
 */
import type { AnyNodeType } from '../../test/engine';
import { runNode } from '../../test/engine';
import type { Check, ScenarioResult } from '../report';
import type { BenchSandbox } from '../sandbox';
import { fmt, median, timed } from '../stats';

export interface RateLimitOptions {
	items: number;
	rateLimit: number;
	rounds: number;
	ourNode: AnyNodeType;
}

interface RoundOutcome {
	ms: number;
	agents: number;
	lost: number;
	duplicated: number;
	unexpected: number;
	created: number;
	limited: number;
	outputOk: boolean;
	error?: string;
}

export async function rateLimited(sandbox: BenchSandbox, options: RateLimitOptions): Promise<ScenarioResult> {
	const ideal = (options.items / options.rateLimit) * 1000;
	const outcomes: RoundOutcome[] = [];
	await sandbox.configure({ rateLimit: options.rateLimit, latencyMs: 0 });
	try {
		for (let round = 0; round < options.rounds; round++) {
			const org = await sandbox.newOrg(`Bench onboarding ${round + 1}`);
			const names = Array.from({ length: options.items }, (_, index) => `Bench agent ${round + 1}-${index + 1}`);
			const { ms, value: result } = await timed(() =>
				runNode({
					nodeTypes: { 'n8n-nodes-voiceai.voiceAi': options.ourNode },
					parameters: {
						resource: 'agent',
						operation: 'create',
						agentName: '={{ $json.agentName }}',
						phoneNumber: '={{ $json.phoneNumber }}',
						task: '={{ $json.task }}',
						selectedVoice: 'maya',
					},
					credentials: { voiceAiApi: { baseUrl: sandbox.baseUrl, apiKey: org.apiKey } },
					items: names.map((agentName, index) => ({
						json: { agentName, phoneNumber: `+1415800${String(index).padStart(4, '0')}`, task: 'Welcome new patients and book a first visit' },
					})),
				}),
			);
			const state = await sandbox.admin<{ agents: Array<{ agentName: string }> }>('GET', `/orgs/${org.id}/state`);
			const log = await sandbox.admin<Array<{ method: string; status: number }>>('GET', `/requests?org=${org.id}`);
			const seen = state.agents.map((agent) => agent.agentName);
			const expected = new Set(names);
			outcomes.push({
				ms,
				agents: seen.length,
				lost: names.filter((name) => !seen.includes(name)).length,
				duplicated: seen.length - new Set(seen).size,
				unexpected: seen.filter((name) => !expected.has(name)).length,
				created: log.filter((entry) => entry.method === 'POST' && entry.status === 201).length,
				limited: log.filter((entry) => entry.status === 429).length,
				outputOk: !result.error && result.items.length === names.length && result.items.every((item, index) => item.json.agentName === names[index]),
				error: result.error?.message,
			});
		}
	} finally {
		await sandbox.configure({ rateLimit: 0 });
	}

	const rows = outcomes.map((outcome, index) => [
		String(index + 1),
		fmt.ms(outcome.ms),
		fmt.ratio(outcome.ms / ideal),
		String(outcome.agents),
		String(outcome.lost),
		String(outcome.duplicated),
		String(outcome.created),
		String(outcome.limited),
		outcome.outputOk ? `${options.items} in order` : `failed: ${outcome.error ?? 'wrong output'}`,
	]);
	const wall = median(outcomes.map((outcome) => outcome.ms));
	const sum = (pick: (outcome: RoundOutcome) => number) => outcomes.reduce((total, outcome) => total + pick(outcome), 0);
	const checks: Check[] = [
		{
			name: 'Agents in the sandbox after each round',
			target: `exactly ${options.items}, the expected names`,
			measured: outcomes.map((outcome) => outcome.agents).join(', '),
			pass: outcomes.every((outcome) => outcome.agents === options.items && outcome.lost === 0 && outcome.unexpected === 0),
		},
		{ name: 'Lost agents (all rounds)', target: '0', measured: String(sum((o) => o.lost)), pass: sum((o) => o.lost) === 0 },
		{ name: 'Duplicated agents (all rounds)', target: '0', measured: String(sum((o) => o.duplicated)), pass: sum((o) => o.duplicated) === 0 },
		{ name: 'Node output: one item per input, in order', target: 'every round', measured: `${outcomes.filter((o) => o.outputOk).length} of ${outcomes.length}`, pass: outcomes.every((o) => o.outputOk) },
		{ name: 'Median wall time / ideal', target: `≤ 1.15x (${fmt.ms(ideal * 1.15)})`, measured: `${fmt.ratio(wall / ideal)} (${fmt.ms(wall)})`, pass: wall / ideal <= 1.15 },
	];
	return {
		title: `3. Rate-limited: ${options.items} Agent Create at ${options.rateLimit} requests/s`,
		setup: `${options.items} input items, one Agent Create each (names, numbers and task from expressions), default node options (Concurrency 5, retries on). The sandbox allows ${options.rateLimit} requests per second per key (fixed one-second windows, 429 with Retry-After past it). Ideal = ${options.items} / ${options.rateLimit} s = ${fmt.ms(ideal)}. ${options.rounds} rounds, each in a new organization; afterwards the organization's agents are read from the sandbox's admin state.`,
		header: ['Round', 'Wall time', 'Wall / ideal', 'Agents in sandbox', 'Lost', 'Duplicated', '201 answers', '429 answers', 'Node output'],
		rows,
		checks,
		notes: [],
	};
}
