/** Small numeric helpers shared by the scenarios. */
import { readFileSync } from 'node:fs';

export function median(values: number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median of the per-round ratios a[i] / b[i]: each round's pair ran back to back, so drift cancels out. */
export function pairedRatio(a: number[], b: number[]): number {
	return median(a.map((value, index) => value / b[index]));
}

/**
 * Time the main (JavaScript) thread spent runnable but waiting for a CPU, in ms, from Linux's
 * /proc/self/schedstat (second field, ns); 0 where that file does not exist.
 */
function runQueueWaitMs(): number {
	try {
		return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
	} catch {
		return 0;
	}
}

export interface Timing<T> {
	ms: number;
	/** This process's CPU time (user + system). */
	cpuMs: number;
	/** How long the JavaScript thread was ready to run but waited for a CPU (other work on the machine). */
	waitMs: number;
	value: T;
}

export async function timed<T>(work: () => Promise<T>): Promise<Timing<T>> {
	const cpu = process.cpuUsage();
	const wait = runQueueWaitMs();
	const start = process.hrtime.bigint();
	const value = await work();
	const ms = Number(process.hrtime.bigint() - start) / 1e6;
	const used = process.cpuUsage(cpu);
	return { ms, cpuMs: (used.user + used.system) / 1000, waitMs: runQueueWaitMs() - wait, value };
}

/** Rotates the order of `list` by `round`, so no variant always runs first (or right after another). */
export function rotate<T>(list: T[], round: number): T[] {
	const shift = round % list.length;
	return [...list.slice(shift), ...list.slice(0, shift)];
}

export const fmt = {
	ms: (ms: number) =>
		ms >= 10_000
			? `${(ms / 1000).toFixed(1)} s`
			: ms >= 1000
				? `${(ms / 1000).toFixed(2)} s`
				: `${ms.toFixed(0)} ms`,
	ms1: (ms: number) => `${ms.toFixed(1)} ms`,
	ratio: (ratio: number) => `${ratio.toFixed(2)}x`,
	share: (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`,
	mib: (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`,
};
