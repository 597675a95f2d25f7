/**
 * Scenario 6 (issue 20), the trigger's cost per delivery in a real n8n: Voice AI Trigger → No Op
 * against n8n's own Webhook node (POST, respond immediately) → No Op, both published in one n8n 2.40.7
 * with this package installed as users install it. The same one-conversation delivery (a fresh
 * conversation id each time, so the trigger's duplicate check lets every one through) is posted
 * straight to each registered URL.
 *
 * Per n8n setting (one n8n process each): a warm-up, then rounds in alternating order; per round and
 * receiver, deliveries one at a time (latency: time to n8n's answer) and deliveries 10 in flight
 * (throughput: deliveries per second until n8n has finished running them and gone quiet). n8n's CPU
 * per delivery is read from /proc/<pid>/stat over the same windows. Ratios are trigger / Webhook node,
 * per round, and the table shows their median.
 */
import { loadavg } from 'node:os';

import { pollUntil } from '../../test/e2e/harness';
import { startStack } from '../../test/e2e/stack';
import { cpuBetween, sampleCpu, waitUntilQuiet, type CpuUsed } from '../procCpu';
import type { Check, ScenarioResult } from '../report';
import { fmt, median, pairedRatio } from '../stats';
import { answered, executionCount, post, publish, RECEIVER_LABEL, RECEIVERS, TRIGGER_SETTINGS, type Receiver, type TriggerSetting } from '../triggerWorkflows';

/** Targets of issue 20: [max latency ratio, min throughput ratio, max CPU ratio]. Defaults: no target (n8n's isolate). */
const TARGETS: Partial<Record<TriggerSetting, { latency: number; throughput: number; cpu: number }>> = {
	likeForLike: { latency: 1.05, throughput: 0.95, cpu: 1.05 },
	lazy: { latency: 1.1, throughput: 0.9, cpu: 1.1 },
};

const CONCURRENCY = 10;

export interface TriggerOptions {
	settings: TriggerSetting[];
	rounds: number;
	/** Deliveries one at a time, per receiver and round. */
	sequential: number;
	/** Deliveries 10 in flight, per receiver and round. */
	parallel: number;
}

interface RoundFigures {
	latencyMs: number;
	perSecond: number;
	cpu: CpuUsed;
	cpuSequential: CpuUsed;
}

interface SettingFigures {
	setting: TriggerSetting;
	rounds: Record<Receiver, RoundFigures[]>;
	executions: Record<Receiver, number>;
	/** Deliveries n8n answered 200, warm-up included: each must have run once. */
	expected: Record<Receiver, number>;
	load: [number, number];
}

async function measureSetting(setting: TriggerSetting, options: TriggerOptions): Promise<SettingFigures> {
	const loadAtStart = loadavg()[0];
	const stack = await startStack({ n8n: { env: TRIGGER_SETTINGS[setting].env } });
	try {
		const pid = stack.n8n.pid();
		if (pid === undefined) throw new Error('n8n is not running');
		const { urls, workflowIds } = await publish(stack);
		const delivered = () => ({ trigger: answered.get(urls.trigger) ?? 0, webhook: answered.get(urls.webhook) ?? 0 });

		const sendSequential = async (receiver: Receiver, count: number): Promise<number[]> => {
			const times: number[] = [];
			for (let index = 0; index < count; index++) times.push(await post(urls[receiver]));
			return times;
		};
		const sendParallel = async (receiver: Receiver, count: number): Promise<void> => {
			let next = 0;
			const worker = async () => {
				while (next < count) {
					next++;
					await post(urls[receiver]);
				}
			};
			await Promise.all(Array.from({ length: CONCURRENCY }, worker));
		};

		for (const receiver of RECEIVERS) await sendSequential(receiver, 10);
		await waitUntilQuiet(pid);

		const rounds: Record<Receiver, RoundFigures[]> = { trigger: [], webhook: [] };
		const sequential: Record<Receiver, { latencyMs: number; cpu: CpuUsed }> = {} as never;
		for (let round = 0; round < options.rounds; round++) {
			const order = round % 2 === 0 ? RECEIVERS : [...RECEIVERS].reverse();
			for (const receiver of order) {
				const before = sampleCpu(pid);
				const times = await sendSequential(receiver, options.sequential);
				await waitUntilQuiet(pid);
				sequential[receiver] = { latencyMs: median(times), cpu: cpuBetween(before, sampleCpu(pid)) };
			}
			for (const receiver of order) {
				const before = sampleCpu(pid);
				const started = performance.now();
				await sendParallel(receiver, options.parallel);
				const ended = await waitUntilQuiet(pid);
				const cpu = cpuBetween(before, sampleCpu(pid));
				rounds[receiver].push({
					latencyMs: sequential[receiver].latencyMs,
					perSecond: options.parallel / ((ended - started) / 1000),
					cpu,
					cpuSequential: sequential[receiver].cpu,
				});
			}
		}
		const executions = {} as Record<Receiver, number>;
		for (const receiver of RECEIVERS) {
			const sent = delivered()[receiver];
			executions[receiver] = await pollUntil(
				async () => {
					const count = await executionCount(stack, workflowIds[receiver]);
					return count >= sent ? count : undefined;
				},
				{ timeoutMs: 60_000, what: `${sent} executions of the ${receiver} workflow` },
			).catch(() => executionCount(stack, workflowIds[receiver]));
		}
		return { setting, rounds, executions, expected: delivered(), load: [loadAtStart, loadavg()[0]] };
	} finally {
		await stack.close();
	}
}

const perDelivery = (cpu: CpuUsed, count: number) => ({ total: cpu.totalMs / count, main: cpu.mainMs / count, other: cpu.otherMs / count });

export async function triggerVsWebhook(options: TriggerOptions): Promise<ScenarioResult> {
	const figures: SettingFigures[] = [];
	for (const setting of options.settings) {
		console.log(`[bench] trigger: ${TRIGGER_SETTINGS[setting].label}`);
		figures.push(await measureSetting(setting, options));
	}

	const rows: string[][] = [];
	const checks: Check[] = [];
	for (const { setting, rounds, executions, expected, load } of figures) {
		const series = (receiver: Receiver) => ({
			latency: rounds[receiver].map((round) => round.latencyMs),
			perSecond: rounds[receiver].map((round) => round.perSecond),
			cpu: rounds[receiver].map((round) => round.cpu.totalMs / options.parallel),
			cpuSequential: rounds[receiver].map((round) => round.cpuSequential.totalMs / options.sequential),
		});
		const trigger = series('trigger');
		const webhook = series('webhook');
		const ratios = {
			latency: pairedRatio(trigger.latency, webhook.latency),
			perSecond: pairedRatio(trigger.perSecond, webhook.perSecond),
			cpu: pairedRatio(trigger.cpu, webhook.cpu),
			cpuSequential: pairedRatio(trigger.cpuSequential, webhook.cpuSequential),
		};
		for (const receiver of RECEIVERS) {
			const own = series(receiver);
			const split = rounds[receiver].map((round) => perDelivery(round.cpu, options.parallel));
			rows.push([
				TRIGGER_SETTINGS[setting].label,
				RECEIVER_LABEL[receiver],
				fmt.ms1(median(own.latency)),
				`${median(own.perSecond).toFixed(1)}/s`,
				`${fmt.ms1(median(own.cpu))} (${fmt.ms1(median(split.map((s) => s.main)))} + ${fmt.ms1(median(split.map((s) => s.other)))})`,
				fmt.ms1(median(own.cpuSequential)),
				`${executions[receiver]} of ${expected[receiver]}`,
			]);
		}
		rows.push([
			TRIGGER_SETTINGS[setting].label,
			'**trigger / Webhook node, median of per-round ratios**',
			fmt.ratio(ratios.latency),
			fmt.ratio(ratios.perSecond),
			fmt.ratio(ratios.cpu),
			fmt.ratio(ratios.cpuSequential),
			`load ${load[0].toFixed(1)} → ${load[1].toFixed(1)}`,
		]);
		checks.push({
			name: `Trigger vs Webhook node, ${TRIGGER_SETTINGS[setting].label}: every delivery ran once`,
			target: `${expected.trigger}, ${expected.webhook} executions`,
			measured: RECEIVERS.map((receiver) => executions[receiver]).join(', '),
			pass: RECEIVERS.every((receiver) => executions[receiver] === expected[receiver]),
		});
		const target = TARGETS[setting];
		if (target) {
			checks.push(
				{ name: `Trigger / Webhook node, ${TRIGGER_SETTINGS[setting].label}: latency at concurrency 1`, target: `≤ ${fmt.ratio(target.latency)}`, measured: fmt.ratio(ratios.latency), pass: ratios.latency <= target.latency },
				{ name: `Trigger / Webhook node, ${TRIGGER_SETTINGS[setting].label}: throughput at concurrency 10`, target: `≥ ${fmt.ratio(target.throughput)}`, measured: fmt.ratio(ratios.perSecond), pass: ratios.perSecond >= target.throughput },
				{ name: `Trigger / Webhook node, ${TRIGGER_SETTINGS[setting].label}: n8n CPU per delivery`, target: `≤ ${fmt.ratio(target.cpu)}`, measured: fmt.ratio(ratios.cpu), pass: ratios.cpu <= target.cpu },
			);
		}
	}

	return {
		title: 'Voice AI Trigger against n8n\'s Webhook node in a real n8n, per delivery',
		setup: `A real n8n 2.40.7 (SQLite, execution saving at its defaults) per setting, with this package installed as users install it and the sandbox. Two published workflows: Voice AI Trigger (Variables and Metadata, no filters, duplicate check on) → No Op, and n8n's Webhook node (POST, Respond Immediately) → No Op. The same one-conversation delivery (a fresh conversation id each time) is posted straight to the URL each one registered (the trigger's with its token). After a warm-up of 10 each, ${options.rounds} rounds in alternating order; per round and receiver, ${options.sequential} deliveries one at a time, then ${options.parallel} with ${CONCURRENCY} in flight.`,
		header: ['Setting', 'Receiver', 'Latency, 1 in flight (median)', `Throughput, ${CONCURRENCY} in flight`, `n8n CPU per delivery, ${CONCURRENCY} in flight (main thread + other threads)`, 'n8n CPU per delivery, 1 in flight', 'Executions / note'],
		rows,
		checks,
		notes: [
			"Latency is the time to n8n's answer (both answer before the workflow runs). Throughput counts deliveries from the first post until n8n has run them all and gone quiet (its threads on or waiting for a CPU less than 5% of a 100 ms window). CPU is utime + stime of the whole n8n process from /proc/<pid>/stat over the same window, threads that exited included; the main thread is where n8n and the nodes run JavaScript, the other threads hold the expression isolate (isolated-vm), garbage collection and SQLite.",
			"At n8n's defaults, n8n skips the expression isolate in the webhook phase only for its own Webhook node (`webhookPhaseNeedsIsolate`), so that row compares two different amounts of n8n's own work; the like-for-like row turns that skip off for both. See docs/trigger-performance.md.",
			'Run this scenario alone: `npm run bench -- --only trigger` (add `--trigger-settings lazy,likeForLike` to pick settings).',
		],
	};
}
