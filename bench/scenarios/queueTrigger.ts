/**
 * Issue 19, benchmark item 5 (second half): Voice AI Trigger against n8n's own Webhook node per
 * delivery in the queue deployment (harness/queue: nginx, two webhook processors, two workers,
 * main, Postgres, Redis), in the n8n settings of the trigger speed scenario (TRIGGER_SETTINGS, each
 * setting in every n8n process of a deployment of its own). The receivers and the delivery are those
 * of scenarios/triggerVsWebhook.ts (bench/triggerWorkflows.ts), posted through the balancer.
 *
 * Per round and receiver: deliveries one at a time (latency: time to the answer, which a webhook
 * processor gives before a worker runs the workflow), then deliveries 10 in flight (throughput: until
 * every execution has finished on the workers). CPU per delivery is the whole deployment's, from
 * /proc, over the same windows, split into webhook processors, workers and the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { QueueRig } from '../../harness/queue/rig';
import type { Check, ScenarioResult } from '../report';
import { fmt, median, pairedRatio, rotate } from '../stats';
import {
	answered,
	publish,
	headerAuthReceiver,
	receivers,
	TRIGGER_SETTINGS,
	triggerVersions,
	WEBHOOK,
	WEBHOOK_HEADER_AUTH,
	type Receiver,
	type TriggerSetting,
	sendInParallel,
} from '../triggerWorkflows';
import { triggerTargetChecks } from './triggerVsWebhook';

const CONCURRENCY = 10;
const WARM_UP = 10;

export interface QueueTriggerOptions {
	settings: TriggerSetting[];
	rounds: number;
	sequential: number;
	parallel: number;
}

interface Cpu {
	webhook: number;
	worker: number;
	other: number;
}

interface Round {
	latencyMs: number;
	perSecond: number;
	/** CPU seconds of the deployment over the parallel window. */
	cpu: Cpu;
}

const total = (cpu: Cpu) => cpu.webhook + cpu.worker + cpu.other;

function cpuOf(rig: QueueRig): Record<string, number> {
	return rig.deployment.cpuSeconds();
}

function cpuBetween(before: Record<string, number>, after: Record<string, number>): Cpu {
	const cpu: Cpu = { webhook: 0, worker: 0, other: 0 };
	for (const [name, seconds] of Object.entries(after)) {
		const used = Math.max(0, seconds - (before[name] ?? 0));
		if (name.startsWith('webhook-')) cpu.webhook += used;
		else if (name.startsWith('worker-')) cpu.worker += used;
		else cpu.other += used;
	}
	return cpu;
}

async function finishedExecutions(rig: QueueRig, workflowId: string): Promise<number> {
	const { rows } = await rig.n8nDb.query<{ count: string }>(
		`SELECT count(*) AS count FROM execution_entity WHERE "workflowId" = $1
		 AND status NOT IN ('new', 'running', 'waiting')`,
		[workflowId],
	);
	return Number(rows[0].count);
}

async function untilFinished(rig: QueueRig, workflowId: string, count: number): Promise<void> {
	const deadline = Date.now() + 300_000;
	while ((await finishedExecutions(rig, workflowId)) < count) {
		if (Date.now() > deadline)
			throw new Error(`${count} executions of workflow ${workflowId} did not finish in 300 s`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

async function measureSetting(
	setting: TriggerSetting,
	list: Receiver[],
	options: QueueTriggerOptions,
): Promise<{
	rounds: Record<string, Round[]>;
	executions: Record<string, number>;
	expected: Record<string, number>;
	failed: Record<string, string>;
	load: [number, number];
}> {
	const loadAtStart = loadavg()[0];
	const root = mkdtempSync(join(tmpdir(), 'voiceai-bench-queue-trigger-'));
	const rig = await QueueRig.start({ root, env: { ...TRIGGER_SETTINGS[setting].env } });
	try {
		const org = rig.sandbox.orgs.find((o) => o.id === rig.org);
		if (!org) throw new Error(`the sandbox has no organization ${rig.org}`);
		const { urls, send, workflowIds } = await publish(
			{
				api: rig.deployment.api,
				admin: rig.sandbox.admin,
				credential: rig.voiceAiCredential,
				org,
				sandbox: rig.sandbox,
				n8n: { webhookBase: rig.deployment.balancerUrl },
			},
			list,
		);
		const sent = (receiver: Receiver) => answered.get(urls[receiver.key])?.ok ?? 0;
		const sendSequential = async (receiver: Receiver, count: number): Promise<number[]> => {
			const times: number[] = [];
			for (let i = 0; i < count; i++) {
				const ms = await send[receiver.key]();
				if (ms !== undefined) times.push(ms);
			}
			await untilFinished(rig, workflowIds[receiver.key], sent(receiver));
			return times;
		};
		const sendParallel = async (receiver: Receiver, count: number): Promise<void> => {
			await sendInParallel(count, CONCURRENCY, send[receiver.key]);
			await untilFinished(rig, workflowIds[receiver.key], sent(receiver));
		};

		for (const receiver of list) await sendSequential(receiver, WARM_UP);
		const rounds: Record<string, Round[]> = Object.fromEntries(list.map((r) => [r.key, []]));
		for (let round = 0; round < options.rounds; round++) {
			const order = rotate(list, round);
			const latency = new Map<string, number>();
			for (const receiver of order)
				latency.set(receiver.key, median(await sendSequential(receiver, options.sequential)));
			for (const receiver of order) {
				const before = cpuOf(rig);
				const started = performance.now();
				await sendParallel(receiver, options.parallel);
				const seconds = (performance.now() - started) / 1000;
				rounds[receiver.key].push({
					latencyMs: latency.get(receiver.key) as number,
					perSecond: options.parallel / seconds,
					cpu: cpuBetween(before, cpuOf(rig)),
				});
			}
		}
		const executions: Record<string, number> = {};
		const expected: Record<string, number> = {};
		const failed: Record<string, string> = {};
		for (const receiver of list) {
			const count = answered.get(urls[receiver.key]);
			expected[receiver.key] = count?.ok ?? 0;
			failed[receiver.key] = count?.failed ? `${count.failed} (HTTP ${count.lastFailure})` : '0';
			executions[receiver.key] = await finishedExecutions(rig, workflowIds[receiver.key]);
		}
		return { rounds, executions, expected, failed, load: [loadAtStart, loadavg()[0]] };
	} finally {
		await rig.close();
		rmSync(root, { recursive: true, force: true });
	}
}

export async function queueTrigger(options: QueueTriggerOptions): Promise<ScenarioResult> {
	// The Header Auth reference holds a credential as the trigger does (n8n reads its credentials per run).
	const [bare, ...triggers] = receivers();
	const list = [bare, headerAuthReceiver(), ...triggers];
	const newNode = `trigger-${triggerVersions().defaultVersion}`;
	const rows: string[][] = [];
	const checks: Check[] = [];
	for (const setting of options.settings) {
		const label = TRIGGER_SETTINGS[setting].label;
		console.log(`[bench] queue trigger: ${label}`);
		const figures = await measureSetting(setting, list, options);
		const series = (key: string) => ({
			latency: figures.rounds[key].map((r) => r.latencyMs),
			perSecond: figures.rounds[key].map((r) => r.perSecond),
			cpu: figures.rounds[key].map((r) => (total(r.cpu) * 1000) / options.parallel),
			webhook: figures.rounds[key].map((r) => (r.cpu.webhook * 1000) / options.parallel),
			worker: figures.rounds[key].map((r) => (r.cpu.worker * 1000) / options.parallel),
			other: figures.rounds[key].map((r) => (r.cpu.other * 1000) / options.parallel),
		});
		const webhook = series(WEBHOOK);
		const withCredential = series(WEBHOOK_HEADER_AUTH);
		const own: string[][] = [];
		for (const receiver of list) {
			const s = series(receiver.key);
			const ratio = {
				latency: pairedRatio(s.latency, webhook.latency),
				perSecond: pairedRatio(s.perSecond, webhook.perSecond),
				cpu: pairedRatio(s.cpu, webhook.cpu),
			};
			const vs = (value: string, r: number) =>
				receiver.key === WEBHOOK ? value : `${value} (${fmt.ratio(r)})`;
			own.push([
				label,
				receiver.label,
				vs(fmt.ms1(median(s.latency)), ratio.latency),
				vs(`${median(s.perSecond).toFixed(1)}/s`, ratio.perSecond),
				vs(
					`${fmt.ms1(median(s.cpu))} = ${fmt.ms1(median(s.webhook))} + ${fmt.ms1(median(s.worker))} + ${fmt.ms1(median(s.other))}`,
					ratio.cpu,
				),
				`${figures.executions[receiver.key]} of ${figures.expected[receiver.key]}; not 200: ${figures.failed[receiver.key]}`,
			]);
			if (receiver.key === newNode) {
				const name = `Queue mode, trigger (a new node) / Webhook node, ${label}`;
				checks.push(...triggerTargetChecks(setting, name, ratio, 'deployment CPU'));
				const latency = pairedRatio(s.latency, withCredential.latency);
				const cpu = pairedRatio(s.cpu, withCredential.cpu);
				checks.push({
					name: `Queue mode, trigger (a new node) / Webhook node with Header Auth, ${label}: latency at concurrency 1, deployment CPU per delivery`,
					target: 'measured (both hold a credential)',
					measured: `${fmt.ratio(latency)}, ${fmt.ratio(cpu)}`,
					pass: Number.isFinite(latency) && Number.isFinite(cpu),
				});
			}
		}
		own.push([
			label,
			`machine load (1-minute average) ${figures.load[0].toFixed(1)} → ${figures.load[1].toFixed(1)}`,
			'',
			'',
			'',
			'',
		]);
		console.log(own.map((row) => row.slice(1).join(' | ')).join('\n'));
		rows.push(...own);
		checks.push({
			name: `Queue mode, ${label}: every delivery answered 200 ran once`,
			target: 'executions = 200 answers, no other answers',
			measured: list
				.map(
					(r) =>
						`${figures.executions[r.key]}/${figures.expected[r.key]}, ${figures.failed[r.key]}`,
				)
				.join('; '),
			pass: list.every(
				(r) =>
					figures.executions[r.key] === figures.expected[r.key] && figures.failed[r.key] === '0',
			),
		});
	}
	return {
		title: "Queue mode: Voice AI Trigger against n8n's Webhook node, per delivery",
		setup: `Per setting, the queue deployment (nginx, two webhook processors, two workers with concurrency 10, main, Postgres, Redis; n8n 2.40.7 with this package installed as users install it), the setting in every n8n process. Published: n8n's Webhook node (POST, Respond Immediately) → No Op, the same with Header Auth, and Voice AI Trigger → No Op at each of its versions (each on its own account), as in the trigger scenario. The same one-conversation delivery (fresh id each time) posted through the balancer. After a warm-up of ${WARM_UP} each, ${options.rounds} rounds in rotating order: ${options.sequential} deliveries one at a time, then ${options.parallel} with ${CONCURRENCY} in flight.`,
		header: [
			'Setting',
			'Receiver',
			'Latency, 1 in flight (median; / Webhook node)',
			`Throughput, ${CONCURRENCY} in flight, until the workers finished`,
			'Deployment CPU per delivery = webhook processors + workers + main, Postgres, Redis, nginx',
			'Executions / answered 200; not 200',
		],
		rows,
		checks,
		notes: [
			"Latency is the time to the webhook processor's answer (both answer when the delivery is received; the workflow then runs on a worker). Throughput counts from the first post until Postgres shows every execution finished. CPU is utime + stime of every process of the deployment and its children (task runners) from /proc over the parallel window, divided by the deliveries.",
			'The trigger does its work (token check, filters, duplicate check) in the webhook processor; a worker then runs the same No Op workflow for both receivers. Targets are those of the trigger speed scenario (issue 20) for the version a new node gets.',
			"The Webhook node with Header Auth is the reference that holds a credential, as the trigger must (its API key registers the webhook). For a workflow whose nodes hold a credential, n8n's webhook processor reads the credentials table before it answers (seen in Postgres' statement log, n8n 2.40.7: the dynamic-credentials context hook and the credentials permission check in WorkflowRunner.run), two database round trips the bare Webhook node does not make; Header Auth adds a third, reading its credential.",
			'Run this scenario alone: `npm run bench -- --only queueTrigger` (add `--trigger-settings likeForLike` to pick settings).',
		],
	};
}
