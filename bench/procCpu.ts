/**
 * CPU of another process (the n8n under test), read from Linux's /proc:
 * - /proc/<pid>/stat: utime + stime of the whole process, threads that have exited included;
 * - /proc/<pid>/task/<tid>/stat: the same per thread (the main JavaScript thread has tid == pid);
 * - /proc/<pid>/task/<tid>/schedstat: time on a CPU and time runnable but waiting for one, in ns,
 *   used to tell when the process has gone quiet (waiting counts as busy, so a starved process on a
 *   loaded machine is not taken for an idle one).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
	if (ticksPerSecond === undefined) {
		try {
			ticksPerSecond =
				Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
		} catch {
			ticksPerSecond = 100;
		}
	}
	return ticksPerSecond;
}

/** utime + stime (ms) and the thread's name from a stat file; the name may hold spaces and parentheses. */
function readStat(file: string): { name: string; cpuMs: number } | undefined {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch {
		return undefined; // the thread exited between listing and reading
	}
	const open = text.indexOf('(');
	const close = text.lastIndexOf(')');
	// Fields after the name start at field 3 (state); utime and stime are fields 14 and 15.
	const fields = text.slice(close + 2).split(' ');
	const ticks = Number(fields[11]) + Number(fields[12]);
	return { name: text.slice(open + 1, close), cpuMs: (ticks * 1000) / clockTicks() };
}

export interface CpuSample {
	/** Whole process, exited threads included (ms). */
	totalMs: number;
	/** The main thread, where n8n and the nodes' JavaScript run (ms). */
	mainMs: number;
	/** Per thread name (V8 workers, libuv pool, isolated-vm's threads), live threads only (ms). */
	byName: Map<string, number>;
}

export function sampleCpu(pid: number): CpuSample {
	const total = readStat(`/proc/${pid}/stat`);
	if (total === undefined) throw new Error(`process ${pid} is gone`);
	const byName = new Map<string, number>();
	let mainMs = 0;
	for (const tid of readdirSync(`/proc/${pid}/task`)) {
		const thread = readStat(`/proc/${pid}/task/${tid}/stat`);
		if (thread === undefined) continue;
		if (Number(tid) === pid) mainMs = thread.cpuMs;
		byName.set(thread.name, (byName.get(thread.name) ?? 0) + thread.cpuMs);
	}
	return { totalMs: total.cpuMs, mainMs, byName };
}

export interface CpuUsed {
	totalMs: number;
	mainMs: number;
	/** Everything but the main thread: isolates, garbage collection, libuv's pool (sqlite). */
	otherMs: number;
	byName: Map<string, number>;
}

export function cpuBetween(before: CpuSample, after: CpuSample): CpuUsed {
	const byName = new Map<string, number>();
	for (const [name, ms] of after.byName) byName.set(name, ms - (before.byName.get(name) ?? 0));
	const totalMs = after.totalMs - before.totalMs;
	const mainMs = after.mainMs - before.mainMs;
	return { totalMs, mainMs, otherMs: totalMs - mainMs, byName };
}

/** Sum over the live threads of (time on CPU + time waiting for a CPU), ns. */
function busyNs(pid: number): Map<string, number> {
	const busy = new Map<string, number>();
	for (const tid of readdirSync(`/proc/${pid}/task`)) {
		try {
			const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
				.split(' ')
				.map(Number);
			busy.set(tid, run + wait);
		} catch {
			// exited meanwhile
		}
	}
	return busy;
}

/**
 * Waits until the process has been quiet for one `windowMs` window: its threads together were on a
 * CPU or waiting for one for less than `busyShare` of the window. Returns the time (ms, from
 * performance.now()) when that quiet window began, so the caller's interval ends there.
 */
export async function waitUntilQuiet(
	pid: number,
	{ windowMs = 100, busyShare = 0.05, timeoutMs = 120_000 } = {},
): Promise<number> {
	const deadline = performance.now() + timeoutMs;
	let before = busyNs(pid);
	let at = performance.now();
	for (;;) {
		await new Promise((resolve) => setTimeout(resolve, windowMs));
		const now = performance.now();
		const after = busyNs(pid);
		let busy = 0;
		for (const [tid, ns] of after) {
			busy += ns - (before.get(tid) ?? 0);
		}
		if (busy / 1e6 < busyShare * (now - at)) return at;
		if (now > deadline) throw new Error(`process ${pid} did not go quiet within ${timeoutMs} ms`);
		before = after;
		at = now;
	}
}
