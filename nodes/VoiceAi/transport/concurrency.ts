import { sleep } from 'n8n-workflow';

export class RequestsStopped extends Error {
	constructor() {
		super('Not sent: another item of this execution failed');
		this.name = 'RequestsStopped';
	}
}

const reasonOf = (signal: AbortSignal): Error =>
	signal.reason instanceof Error ? signal.reason : new Error('The execution was stopped');

/** Settles as `promise` does, or rejects as soon as `signal` aborts: the wait ends, not the work. */
export async function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
	if (!signal) return await promise;
	// Its failure after the wait has ended is nobody's to report.
	promise.catch(() => undefined);
	if (signal.aborted) throw reasonOf(signal);
	let onAbort = () => {};
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(reasonOf(signal));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		return await Promise.race([promise, aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/** Waits `ms`, ended early by `signal` (n8n-workflow 1.x's `sleep` may not take one). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	const ended = new AbortController();
	const both = signal ? AbortSignal.any([signal, ended.signal]) : ended.signal;
	try {
		await untilAborted(sleep(ms, both), signal);
	} finally {
		ended.abort();
	}
}

/** Aborts after `ms` unless `ended` aborts first: a deadline that leaves no timer behind. */
export function deadline(ms: number, ended: AbortSignal, reason: () => Error): AbortSignal {
	const expired = new AbortController();
	sleep(ms, ended).then(
		() => !ended.aborted && expired.abort(reason()),
		() => undefined,
	);
	return expired.signal;
}

/**
 * The one limit of an execution: items started and requests in flight stay within it; a 429 pauses
 * every request and halves it. A place is held for one request only, never while an item waits for
 * anything else (another item's decision, a shared check, a retry's delay): so no wait in the gate
 * depends on an item that itself waits, and each ends within the bound of docs/operations.md.
 */
export function requestGate(max: number, cancel?: AbortSignal) {
	let limit = Math.max(1, max);
	let items = 0;
	let requests = 0;
	let successes = 0;
	let pausedUntil = 0;
	/** Requests waiting for a place; woken all at once, each checks again. */
	let waiting: Array<() => void> = [];
	const wake = () => {
		const woken = waiting;
		waiting = [];
		for (const resolve of woken) resolve();
	};
	let fill = () => {};
	const stopped = new AbortController();
	const signal = cancel ? AbortSignal.any([cancel, stopped.signal]) : stopped.signal;
	const ifStopped = () => {
		if (stopped.signal.aborted) throw new RequestsStopped();
		if (signal.aborted) throw reasonOf(signal);
	};

	return {
		/** Aborted by Stop, or once the gate is closed. */
		signal,

		/** After a hard failure: no item starts, no request goes out (docs/security.md). */
		close(): void {
			stopped.abort(new RequestsStopped());
			wake();
			fill();
		},

		/** Before each attempt: waits out a 429's pause and for a place. Call the result once answered. */
		async turn(): Promise<() => void> {
			for (;;) {
				ifStopped();
				const paused = pausedUntil - Date.now();
				if (paused > 0) await pause(paused, signal).catch(ifStopped);
				else if (requests >= limit)
					await untilAborted(new Promise<void>((resolve) => waiting.push(resolve)), signal).catch(
						ifStopped,
					);
				else break;
			}
			requests++;
			let held = true;
			return () => {
				if (!held) return;
				held = false;
				requests--;
				wake();
			};
		},

		succeeded(): void {
			if (limit < max && ++successes >= limit) {
				successes = 0;
				limit++;
				wake();
				fill();
			}
		},

		rateLimited(waitMs: number): void {
			const now = Date.now();
			// Requests already in flight when the first 429 came back count as one signal, not many.
			if (pausedUntil <= now) {
				limit = Math.max(1, Math.ceil(limit / 2));
				successes = 0;
			}
			pausedUntil = Math.max(pausedUntil, now + waitMs);
		},

		/**
		 * Starts in input order; indexes of one record run one at a time. After a failure nothing new
		 * starts, and the error of the lowest failing index is thrown once the running ones end.
		 */
		async forEachIndex(
			count: number,
			task: (index: number) => Promise<void>,
			recordOf?: (index: number) => string | undefined,
		): Promise<void> {
			const records = Array.from({ length: count }, (_, index) => recordOf?.(index));
			const busy = new Set<string | undefined>();
			// Indexes passed over while their record was busy: all below `next`, in input order.
			const deferred: number[] = [];
			const failures: Array<{ index: number; error: unknown }> = [];
			let next = 0;
			const isFree = (index: number) => records[index] === undefined || !busy.has(records[index]);
			const nextStartable = (): number | undefined => {
				const at = deferred.findIndex(isFree);
				if (at >= 0) return deferred.splice(at, 1)[0];
				while (next < count) {
					if (isFree(next)) return next++;
					deferred.push(next++);
				}
				return undefined;
			};
			await new Promise<void>((resolve) => {
				fill = () => {
					while (!signal.aborted && failures.length === 0 && items < limit) {
						const index = nextStartable();
						if (index === undefined) break;
						busy.add(records[index]);
						items++;
						void task(index)
							.catch((error: unknown) => void failures.push({ index, error }))
							.finally(() => {
								items--;
								busy.delete(records[index]);
								fill();
							});
					}
					if (items === 0) resolve();
				};
				fill();
			});
			if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
			ifStopped();
		},
	};
}
