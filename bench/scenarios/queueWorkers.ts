/**
 * Queue mode (test/support/queue): deliveries per second through the balancer with one worker and
 * with two, the CRM workflow (Voice AI Trigger -> Pass Once -> Postgres upsert) published. Throughput
 * counts until the last execution has finished. Whether the workers hold the deliveries up is read
 * from n8n's database: how long executions waited in the queue for a worker (created to started)
 * against how long they ran. CPU seconds per process come from /proc over each run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { QueueRig } from '../../test/support/queue/rig';
import type { Check, ScenarioResult } from '../report';

export async function queueWorkers({
	deliveries,
}: {
	deliveries: number;
}): Promise<ScenarioResult> {
	const root = mkdtempSync(join(tmpdir(), 'voiceai-bench-queue-'));
	const rig = await QueueRig.start({ root });
	const rows: string[][] = [];
	const perSecond: Record<number, number> = {};
	const waits: Record<number, { median: number; p90: number; run: number }> = {};
	const notes: string[] = [];
	try {
		const second = rig.deployment.process('worker-2');
		for (const workers of [1, 2]) {
			if (workers === 1) await second.stop('SIGTERM');
			else await second.start();
			const before = rig.deployment.cpuSeconds();
			const figures = await rig.run({
				name: `bench-${workers}w`,
				passOnce: true,
				total: deliveries,
				repeatShare: 0,
			});
			const after = rig.deployment.cpuSeconds();
			const used = Object.entries(after)
				.map(([name, seconds]) => [name, seconds - (before[name] ?? 0)] as const)
				.filter(([, seconds]) => seconds > 0.05)
				.sort((a, b) => b[1] - a[1]);
			perSecond[workers] = figures.deliveriesPerSecond;
			const { queueWaitMs, runMs } = figures.timings;
			waits[workers] = { ...queueWaitMs, run: runMs };
			rows.push([
				String(workers),
				String(figures.deliveriesPerSecond),
				`${figures.settledSeconds} s`,
				`${figures.executions} (${figures.rows} rows)`,
				`${queueWaitMs.median} ms / ${queueWaitMs.p90} ms`,
				`${runMs} ms`,
				`${used[0][0]} (${used[0][1].toFixed(1)} s)`,
				used.map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`).join(', '),
			]);
		}
	} finally {
		await rig.close();
		rmSync(root, { recursive: true, force: true });
	}
	const ratio = perSecond[2] / perSecond[1];
	const waitShare = waits[2].median / Math.max(1, waits[2].run);
	notes.push(
		`Ratio two workers / one worker: ${ratio.toFixed(2)}. On this 2-core machine every process shares the same two cores, so a second worker adds capacity only while the CPU is not already busy elsewhere.`,
		'Queue wait is the time from n8n creating an execution (the webhook processor, when it queues the job) to a worker starting it; run is from start to finish on the worker (execution_entity in Postgres). Executions that wait for a worker mean the workers hold the deliveries up; executions taken at once mean the limit is elsewhere (the webhook processors or the shared CPU).',
	);
	const checks: Check[] = [
		{
			name: 'Deliveries per second, two workers vs one',
			target: 'measured (ratio)',
			measured: `${ratio.toFixed(2)}x`,
			pass: Number.isFinite(ratio),
		},
		{
			name: 'Workers are not the bottleneck at two: executions do not wait for a worker',
			target: 'median queue wait ≤ 10% of median run',
			measured: `${waits[2].median} ms of ${waits[2].run} ms (${Math.round(waitShare * 100)}%); busiest process ${rows[1][6]}`,
			pass: waitShare <= 0.1,
		},
	];
	return {
		title: 'Queue mode: one worker against two',
		setup: `${deliveries} deliveries from the sandbox (40 in flight) through nginx to two webhook processors, the CRM workflow on one worker, then on two (concurrency 10 each).`,
		header: [
			'Workers',
			'Deliveries/s',
			'Until all done',
			'Executions',
			'Queue wait (median / p90)',
			'Run (median)',
			'Busiest process (CPU)',
			'CPU seconds by process',
		],
		rows,
		checks,
		notes,
	};
}
