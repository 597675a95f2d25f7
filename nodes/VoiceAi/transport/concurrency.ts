import { sleep } from 'n8n-workflow';

export class RequestsStopped extends Error {
	constructor() {
		super('Not sent: another item of this execution failed');
		this.name = 'RequestsStopped';
	}
}

/** The one limit on an execution's items in flight: a 429 pauses them all and halves it. */
export function requestGate(max: number, cancel?: AbortSignal) {
	let limit = Math.max(1, max);
	let running = 0;
	let successes = 0;
	let pausedUntil = 0;
	/** Items that gave their place up after a 429 get one back before a new item starts. */
	const waiting: Array<() => void> = [];
	let fill = () => {};
	const stopped = new AbortController();
	const signal = cancel ? AbortSignal.any([cancel, stopped.signal]) : stopped.signal;

	return {
		signal,

		/** After a hard failure: no item starts, no request goes out (docs/security.md). */
		close(): void {
			stopped.abort(new RequestsStopped());
			fill();
		},

		/** Before each attempt. */
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

		async requeue(): Promise<void> {
			running--;
			await new Promise<void>((resolve) => {
				waiting.push(resolve);
				fill();
			});
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
