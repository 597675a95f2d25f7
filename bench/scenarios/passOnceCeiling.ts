/**
 * The ceiling of Pass Once for one workflow (issue 28): P processes (1, 2, 4, 8), each standing in for
 * a queue-mode worker with 10 executions in flight, run Pass Once checks for one workflow and one node
 * against one Postgres through n8n's own processed-data store (passOnceWorker.ts). Half the
 * conversations come twice, the second time from another process, at about the same moment. Reports
 * checks per second (each check is one execution's conversation), how long a check waits before the
 * history write that carries it starts (the lock wait), and whether every conversation passed
 * exactly once. The processes mostly wait on the database, so 8 of them fit on a small machine.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from '../../harness/n8n';
import { startPostgres } from '../../harness/queue/servers';
import type { Check, ScenarioResult } from '../report';
import type { WorkerPlan, WorkerReport } from './passOnceWorker';

const IN_FLIGHT = 10;
const HISTORY_SIZE = 10_000;
const TARGET_AT_8 = 200;
const SMALL_HISTORY = 1_000;
const RECORDER = join(
	__dirname,
	'..',
	'..',
	'nodes',
	'VoiceAi',
	'actions',
	'conversation',
	'passOnceRecorder.ts',
);

export interface PassOnceCeilingRun {
	processes: number;
	checks: number;
	perSecond: number;
	lockWait: { median: number; p90: number };
	checkMs: { median: number; p90: number };
	batch: number;
	historyWriteMs: number;
	historySize: number;
	storeCallsPerCheck: number;
	passedTwice: number;
	neverPassed: number;
	errors: string[];
}

function quantile(values: number[], q: number): number {
	const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
	return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

/** The checks of each process: conversation i first in process i mod P; every even i again, in the next process. */
export function plannedIds(runTag: string, conversations: number, processes: number): string[][] {
	const lists: string[][] = Array.from({ length: processes }, () => []);
	for (let i = 0; i < conversations; i++) {
		const id = `${runTag}-conv-${i}`;
		lists[i % processes].push(id);
		if (i % 2 === 0) lists[(i + 1) % processes].push(id);
	}
	return lists;
}

export function startWorker(plan: WorkerPlan): {
	ready: Promise<void>;
	go: () => void;
	done: Promise<WorkerReport & { lockEntries?: number }>;
} {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', join(__dirname, 'passOnceWorker.ts'), JSON.stringify(plan)],
		{ stdio: ['pipe', 'pipe', 'inherit'] },
	);
	let out = '';
	let markReady: () => void = () => {};
	const ready = new Promise<void>((resolve) => (markReady = resolve));
	child.stdout.on('data', (chunk: Buffer) => {
		out += chunk.toString();
		if (out.includes('ready\n')) markReady();
	});
	const done = new Promise<WorkerReport & { lockEntries?: number }>((resolve, reject) => {
		child.on('exit', (code) => {
			const line = out.split('\n').find((l) => l.startsWith('{'));
			if (code !== 0 || !line) reject(new Error(`a Pass Once process exited ${code}: ${out}`));
			else resolve(JSON.parse(line) as WorkerReport);
		});
	});
	return { ready, go: () => child.stdin.end('go\n'), done };
}

export type StoreBase = Omit<WorkerPlan, 'workflowId' | 'ids'>;

/** One Postgres with n8n's processed_data table, and what a worker needs to reach it. */
export async function startStoreDatabase(
	n8nDir: string,
	recorder = RECORDER,
): Promise<{ base: StoreBase; stop: () => Promise<void> }> {
	const root = mkdtempSync(join(tmpdir(), 'voiceai-passonce-'));
	const pg = await startPostgres(root, await freePort());
	const stop = async () => {
		await pg.server.stop('SIGTERM');
		rmSync(root, { recursive: true, force: true });
	};
	const base: StoreBase = {
		n8nDir,
		recorder,
		pg: {
			host: pg.host,
			port: pg.port,
			user: pg.user,
			password: pg.password,
			database: 'postgres',
		},
		nodeId: 'pass-once-node',
		inFlight: IN_FLIGHT,
		historySize: HISTORY_SIZE,
	};
	try {
		await startWorker({ ...base, workflowId: 'setup', ids: [], mode: 'setup' }).done;
	} catch (error) {
		await stop();
		throw error;
	}
	return { base, stop };
}

export async function passOnceCeiling({
	n8nDir,
	conversations,
	processCounts = [1, 2, 4, 8],
	smallHistory = true,
	recorder = RECORDER,
}: {
	n8nDir: string;
	conversations: number;
	processCounts?: number[];
	/** Also run the most processes with a history of 1,000: what the history's size costs each write. */
	smallHistory?: boolean;
	recorder?: string;
}): Promise<ScenarioResult & { runs: PassOnceCeilingRun[] }> {
	const { base, stop } = await startStoreDatabase(n8nDir, recorder);
	const runs: PassOnceCeilingRun[] = [];
	try {
		const plans = processCounts.map((processes) => ({ processes, historySize: HISTORY_SIZE }));
		if (smallHistory)
			plans.push({ processes: Math.max(...processCounts), historySize: SMALL_HISTORY });
		for (const { processes, historySize } of plans) {
			const workflowId = `ceiling-${processes}-${historySize}`;
			// A history forgets its oldest: fewer new conversations than it holds, so a repeat is never forgotten.
			const count = Math.min(conversations, Math.floor(historySize * 0.9));
			const lists = plannedIds(workflowId, count, processes);
			const workers = lists.map((ids, index) =>
				startWorker({
					...base,
					historySize,
					workflowId,
					ids,
					prefill: index === 0 ? historySize : 0,
				}),
			);
			await Promise.all(workers.map((w) => w.ready));
			for (const worker of workers) worker.go();
			const reports = await Promise.all(workers.map((w) => w.done));
			const checks = lists.reduce((sum, ids) => sum + ids.length, 0);
			const elapsed = Math.max(...reports.map((r) => r.elapsedMs));
			const passes = new Map<string, number>();
			for (const id of reports.flatMap((r) => r.passed)) passes.set(id, (passes.get(id) ?? 0) + 1);
			const waits = reports.flatMap((r) => r.lockWaitMs);
			const times = reports.flatMap((r) => r.checkMs);
			const writes = reports.reduce((sum, r) => sum + r.historyWrites, 0);
			runs.push({
				processes,
				checks,
				perSecond: (checks / elapsed) * 1000,
				lockWait: { median: quantile(waits, 0.5), p90: quantile(waits, 0.9) },
				checkMs: { median: quantile(times, 0.5), p90: quantile(times, 0.9) },
				batch: checks / Math.max(1, writes),
				historyWriteMs: quantile(
					reports.flatMap((r) => r.historyWriteMs),
					0.5,
				),
				historySize,
				storeCallsPerCheck: reports.reduce((sum, r) => sum + r.storeCalls, 0) / checks,
				passedTwice: [...passes.values()].filter((n) => n > 1).length,
				neverPassed: count - passes.size,
				errors: reports.flatMap((r) => r.errors),
			});
			console.log(`[passOnce] ${processes} processes: ${JSON.stringify(runs.at(-1))}`);
		}
	} finally {
		await stop();
	}
	return report(runs, conversations);
}

function report(
	runs: PassOnceCeilingRun[],
	conversations: number,
): ScenarioResult & { runs: PassOnceCeilingRun[] } {
	const rows = runs.map((run) => [
		`${run.processes}${run.historySize === HISTORY_SIZE ? '' : ` (history ${run.historySize.toLocaleString('en-US')})`}`,
		run.perSecond.toFixed(0),
		`${run.lockWait.median.toFixed(0)} / ${run.lockWait.p90.toFixed(0)} ms`,
		`${run.checkMs.median.toFixed(0)} / ${run.checkMs.p90.toFixed(0)} ms`,
		run.batch.toFixed(1),
		`${run.historyWriteMs.toFixed(0)} ms`,
		run.storeCallsPerCheck.toFixed(1),
		`${run.passedTwice} / ${run.neverPassed} / ${run.errors.length}`,
	]);
	const at8 = runs.find((run) => run.processes === 8 && run.historySize === HISTORY_SIZE);
	const checks: Check[] = [
		{
			name: 'Every conversation passed exactly once, every process count',
			target: '0 twice, 0 never, 0 failed checks',
			measured: runs
				.map((r) => `${r.processes}: ${r.passedTwice}/${r.neverPassed}/${r.errors.length}`)
				.join(', '),
			pass: runs.every((r) => r.passedTwice === 0 && r.neverPassed === 0 && r.errors.length === 0),
		},
	];
	if (at8)
		checks.push({
			name: 'Checks per second at 8 processes',
			target: `>= ${TARGET_AT_8}`,
			measured: at8.perSecond.toFixed(0),
			pass: at8.perSecond >= TARGET_AT_8,
		});
	return {
		title: 'Pass Once ceiling: checks per second for one workflow, 1 to 8 processes',
		setup: `${conversations} conversations, half of them twice (the second time from another process), for one workflow and one Pass Once node; each process runs ${IN_FLIGHT} checks at a time through n8n's own processed-data store (the n8n install's DeduplicationHelper) against one Postgres, history size ${HISTORY_SIZE.toLocaleString('en-US')}, filled with earlier conversations before the checks start (a history in use).`,
		header: [
			'Processes',
			'Checks/s',
			'Lock wait, median / p90',
			'Check, median / p90',
			'Checks per history write',
			'History write, median',
			'Store calls per check',
			'Twice / never / failed',
		],
		rows,
		checks,
		notes: [
			'Lock wait: from the call to the start of the history write that carried the check. Checks/s counts every check (new and repeated) until the slowest process is done.',
			"History write: n8n's store reads the workflow's whole list of hashes and writes it back (one row, key workflow id and context), under Pass Once's lock; one process at a time. The last row runs the most processes with a history of 1,000 instead of 10,000, and 900 conversations (a history forgets its oldest entries: with more new conversations than it holds between two copies, the second copy passes again, as it should): the difference is what the list's size costs each write.",
			'Medians and 90th percentiles are over the checks of all processes; one run per process count.',
		],
		runs,
	};
}
