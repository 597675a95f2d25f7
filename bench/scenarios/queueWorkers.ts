/**
 * Queue mode (harness/queue): deliveries per second through the balancer with one worker and
 * with two, the CRM workflow (Voice AI Trigger -> Pass Once -> Postgres upsert) published. Throughput
 * counts until the last execution has finished. Whether the workers hold the deliveries up is read
 * from n8n's database: how long executions waited in the queue for a worker (created to started)
 * against how long they ran. CPU seconds per process come from /proc over each run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { QueueRig } from '../../harness/queue/rig';
import type { Check, ScenarioResult } from '../report';

interface Run {
	label: string;
	workers: number;
	passOnce: boolean;
	perSecond: number;
	queueWait: { median: number; p90: number };
	runMs: number;
	workerMsPerExecution: number;
	busiest: string;
	missing: number;
	writtenTwice: number;
	failed: number;
}

const PLANS = [
	{ label: '1, with Pass Once', workers: 1, passOnce: true },
	{ label: '2, with Pass Once', workers: 2, passOnce: true },
	{ label: '2, without Pass Once', workers: 2, passOnce: false },
];

export async function queueWorkers({
	deliveries,
}: {
	deliveries: number;
}): Promise<ScenarioResult> {
	const root = mkdtempSync(join(tmpdir(), 'voiceai-bench-queue-'));
	const rig = await QueueRig.start({ root });
	const rows: string[][] = [];
	const runs: Run[] = [];
	try {
		const second = rig.deployment.process('worker-2');
		let secondRunning = true;
		for (const plan of PLANS) {
			if (plan.workers === 1 && secondRunning) {
				await second.stop('SIGTERM');
				secondRunning = false;
			} else if (plan.workers === 2 && !secondRunning) {
				await second.start();
				secondRunning = true;
			}
			const before = rig.deployment.cpuSeconds();
			const figures = await rig.run({
				name: `bench-${plan.workers}w${plan.passOnce ? '' : '-plain'}`,
				passOnce: plan.passOnce,
				total: deliveries,
				repeatShare: 0,
			});
			const after = rig.deployment.cpuSeconds();
			const used = Object.entries(after)
				.map(([name, seconds]) => [name, seconds - (before[name] ?? 0)] as const)
				.filter(([, seconds]) => seconds > 0.05)
				.sort((a, b) => b[1] - a[1]);
			const workerSeconds = used
				.filter(([name]) => name.startsWith('worker-'))
				.reduce((sum, [, seconds]) => sum + seconds, 0);
			const run: Run = {
				...plan,
				perSecond: figures.deliveriesPerSecond,
				queueWait: figures.timings.queueWaitMs,
				runMs: figures.timings.runMs,
				workerMsPerExecution: (workerSeconds * 1000) / Math.max(1, figures.executions),
				busiest: `${used[0][0]} (${used[0][1].toFixed(1)} s)`,
				missing: figures.missing,
				writtenTwice: figures.writtenTwice,
				failed: figures.failed,
			};
			runs.push(run);
			rows.push([
				plan.label,
				String(run.perSecond),
				`${figures.settledSeconds} s`,
				`${figures.executions} (${figures.rows} rows)`,
				`${run.queueWait.median} ms / ${run.queueWait.p90} ms`,
				`${run.runMs} ms`,
				`${run.workerMsPerExecution.toFixed(1)} ms`,
				run.busiest,
				used.map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`).join(', '),
			]);
		}
	} finally {
		await rig.close();
		rmSync(root, { recursive: true, force: true });
	}
	const [one, two, plain] = runs;
	const ratio = two.perSecond / one.perSecond;
	const waitShare = two.queueWait.median / Math.max(1, two.runMs);
	const passOnceShare = 1 - plain.workerMsPerExecution / two.workerMsPerExecution;
	const runRatio = two.runMs / Math.max(1, plain.runMs);
	const notes = [
		`Ratio two workers / one worker: ${ratio.toFixed(2)}. On this 2-core machine every process shares the same two cores, so a second worker adds capacity only while the CPU is not already busy elsewhere.`,
		'Queue wait is the time from n8n creating an execution (the webhook processor, when it queues the job) to a worker starting it; run is from start to finish on the worker (execution_entity in Postgres). Executions that wait for a worker mean the workers hold the deliveries up; executions taken at once mean the limit is elsewhere (the webhook processors or the shared CPU).',
		`The third row is the same workflow without Pass Once (trigger -> Postgres upsert): what n8n itself costs a worker per execution. Pass Once's share of the workers' CPU at two workers: ${Math.round(passOnceShare * 100)}%.`,
	];
	const checks: Check[] = [
		{
			name: 'Every conversation written to the CRM once, in every run',
			target: 'missing 0, written twice 0, failed runs 0',
			measured: runs
				.map((run) => `${run.label}: ${run.missing}, ${run.writtenTwice}, ${run.failed}`)
				.join('; '),
			pass: runs.every((run) => run.missing + run.writtenTwice + run.failed === 0),
		},
		{
			name: 'Deliveries per second, two workers vs one',
			target: 'measured (ratio)',
			measured: `${ratio.toFixed(2)}x`,
			pass: Number.isFinite(ratio),
		},
		{
			name: "Pass Once's share of the workers' CPU per execution, two workers",
			target: 'measured (against the workflow without it)',
			measured: `${two.workerMsPerExecution.toFixed(1)} ms against ${plain.workerMsPerExecution.toFixed(1)} ms (${Math.round(passOnceShare * 100)}%)`,
			pass: Number.isFinite(passOnceShare),
		},
		{
			name: 'Run time with Pass Once against without, two workers (issue 28)',
			target: 'median run ≤ 1.1x',
			measured: `${two.runMs} ms against ${plain.runMs} ms (${runRatio.toFixed(2)}x)`,
			pass: runRatio <= 1.1,
		},
		{
			name: 'Workers are not the bottleneck at two: executions do not wait for a worker',
			target: 'median queue wait ≤ 10% of median run',
			measured: `${two.queueWait.median} ms of ${two.runMs} ms (${Math.round(waitShare * 100)}%); busiest process ${two.busiest}; without Pass Once ${plain.queueWait.median} ms of ${plain.runMs} ms (${Math.round((plain.queueWait.median / Math.max(1, plain.runMs)) * 100)}%)`,
			pass: waitShare <= 0.1,
		},
	];
	return {
		title: 'Queue mode: one worker against two',
		setup: `${deliveries} deliveries from the sandbox (40 in flight) through nginx to two webhook processors, the CRM workflow (Voice AI Trigger -> Pass Once -> Postgres upsert) on one worker, then on two (concurrency 10 each), then on two without Pass Once. n8n defaults.`,
		header: [
			'Workers, workflow',
			'Deliveries/s',
			'Until all done',
			'Executions',
			'Queue wait (median / p90)',
			'Run (median)',
			'Worker CPU per execution',
			'Busiest process (CPU)',
			'CPU seconds by process',
		],
		rows,
		checks,
		notes,
	};
}
