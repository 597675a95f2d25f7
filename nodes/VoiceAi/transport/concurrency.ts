import { sleep } from 'n8n-workflow';

/** Thrown to a request that had not started when the gate closed (another item of the execution failed). */
export class RequestsStopped extends Error {
	constructor() {
		super('Not sent: another item of this execution failed');
		this.name = 'RequestsStopped';
	}
}

/**
 * The one limit on the items of an execution in flight (the Concurrency option), backing off together
 * on 429: every request waits out the Retry-After, the limit halves, and it grows back by one per
 * `limit` successful responses. An item that got a 429 gives its place up and queues for one again.
 */
export function requestGate(max: number, cancel?: AbortSignal) {
	let limit = Math.max(1, max);
	let running = 0;
	let successes = 0;
	let pausedUntil = 0;
	/** Items that gave their place up after a 429 get one before a new item starts. */
	const waiting: Array<() => void> = [];
	let fill = () => {};
	const stopped = new AbortController();
	/** Ends every wait when the execution is cancelled or the gate closes. */
	const signal = cancel ? AbortSignal.any([cancel, stopped.signal]) : stopped.signal;

	return {
		signal,

		/** After a hard failure: no item starts and no request goes out; waits end with RequestsStopped. */
		close(): void {
			stopped.abort(new RequestsStopped());
			fill();
		},

		/** Before each attempt: waits out a pause after a 429; throws RequestsStopped once closed. */
		async turn(): Promise<void> {
			for (let pause; !stopped.signal.aborted && (pause = pausedUntil - Date.now()) > 0; )
				await sleep(pause, signal).catch((error: unknown) => {
					if (!stopped.signal.aborted) throw error;
				});
			if (stopped.signal.aborted) throw new RequestsStopped();
		},

		succeeded(): void {
			if (limit < max && ++successes >= limit) {
				successes = 0;
				limit++;
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

		/** After a 429 that will be repeated. */
		async requeue(): Promise<void> {
			running--;
			await new Promise<void>((resolve) => {
				waiting.push(resolve);
				fill();
			});
		},

		/**
		 * Runs `task` for indexes 0..count-1, started in input order. Indexes that `recordOf` gives the
		 * same record run one after another in input order; the others do not wait for them. Once a task
		 * throws, no new index starts; the error of the lowest failing index is rethrown at the end.
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
					const closed = stopped.signal.aborted;
					for (; waiting.length > 0 && (closed || running < limit); running++) waiting.shift()?.();
					while (!closed && failures.length === 0 && running < limit) {
						const index = nextStartable();
						if (index === undefined) break;
						busy.add(records[index]);
						running++;
						void task(index)
							.catch((error: unknown) => void failures.push({ index, error }))
							.finally(() => {
								running--;
								busy.delete(records[index]);
								fill();
							});
					}
					if (running === 0 && waiting.length === 0) resolve();
				};
				fill();
			});
			if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
		},
	};
}
