import { sleep } from 'n8n-workflow';

/** Thrown to a request that had not started when the gate closed (another item of the execution failed). */
export class RequestsStopped extends Error {
	constructor() {
		super('Not sent: another item of this execution failed');
		this.name = 'RequestsStopped';
	}
}

/**
 * Bounds the requests in flight for one execution and backs off together when the service says 429:
 * the allowed number halves and every request waits out the Retry-After; it grows back by one per
 * `limit` successful responses (additive increase, multiplicative decrease).
 */
export class RequestGate {
	private limit: number;

	private active = 0;

	private successes = 0;

	private pausedUntil = 0;

	private readonly waiting: Array<() => void> = [];

	private readonly stopped = new AbortController();

	private combined?: { from: AbortSignal; signal: AbortSignal };

	constructor(private readonly max: number) {
		this.limit = max;
	}

	/**
	 * After a hard failure: no request that has not started goes out. Requests waiting for a slot or a
	 * pause, and waits between attempts, end at once with RequestsStopped.
	 */
	close(): void {
		if (this.stopped.signal.aborted) return;
		this.stopped.abort(new RequestsStopped());
		for (const wake of this.waiting.splice(0)) wake();
	}

	get closed(): boolean {
		return this.stopped.signal.aborted;
	}

	/** A signal for waits between attempts: it fires when the execution is cancelled or the gate closes. */
	signalWith(signal?: AbortSignal): AbortSignal {
		if (!signal) return this.stopped.signal;
		if (this.combined?.from !== signal)
			this.combined = { from: signal, signal: AbortSignal.any([signal, this.stopped.signal]) };
		return this.combined.signal;
	}

	/** `signal`: the execution's cancel signal, so a stopped execution does not sit out a pause. */
	async acquire(signal?: AbortSignal): Promise<void> {
		for (;;) {
			if (this.closed) throw new RequestsStopped();
			const pause = this.pausedUntil - Date.now();
			if (pause > 0) {
				await sleep(pause, this.signalWith(signal)).catch((error: unknown) => {
					if (!this.closed) throw error;
				});
				continue;
			}
			if (this.active < this.limit) {
				this.active++;
				return;
			}
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		}
	}

	release(outcome: 'success' | 'rateLimited' | 'other'): void {
		this.active--;
		if (outcome === 'success' && this.limit < this.max && ++this.successes >= this.limit) {
			this.successes = 0;
			this.limit++;
		}
		this.wake();
	}

	/** Called when the service answered 429: everyone waits `waitMs`, and fewer requests run afterwards. */
	rateLimited(waitMs: number): void {
		const now = Date.now();
		// Requests that were already in flight when the first 429 came back count as one signal, not many.
		if (this.pausedUntil <= now) {
			this.limit = Math.max(1, Math.ceil(this.limit / 2));
			this.successes = 0;
		}
		this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
	}

	private wake(): void {
		let free = this.limit - this.active;
		while (free-- > 0 && this.waiting.length > 0) this.waiting.shift()?.();
	}
}

/**
 * Runs `task` for indexes 0..count-1, starting them in input order with at most `concurrency` running at
 * once. Indexes that `recordOf` gives the same record run one after another in input order (an item that
 * reads a record and then writes it never interleaves with another item of that record); the others do
 * not wait for them. Once a task throws, no new index starts; the error of the lowest failing index is
 * rethrown after the running ones finish.
 */
export async function forEachIndex(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<void>,
	recordOf?: (index: number) => string | undefined,
): Promise<void> {
	const records = recordOf ? Array.from({ length: count }, (_, index) => recordOf(index)) : [];
	const limit = Math.max(1, concurrency);
	const busy = new Set<string>();
	// Indexes passed over while their record was busy: all below `next`, kept in input order.
	const deferred: number[] = [];
	const failures: Array<{ index: number; error: unknown }> = [];
	let next = 0;
	let running = 0;

	const isFree = (index: number) => records[index] === undefined || !busy.has(records[index]);
	const nextStartable = (): number | undefined => {
		const at = deferred.findIndex(isFree);
		if (at >= 0) return deferred.splice(at, 1)[0];
		while (next < count) {
			const index = next++;
			if (isFree(index)) return index;
			deferred.push(index);
		}
		return undefined;
	};

	await new Promise<void>((resolve) => {
		const fill = () => {
			while (failures.length === 0 && running < limit) {
				const index = nextStartable();
				if (index === undefined) break;
				const record = records[index];
				if (record !== undefined) busy.add(record);
				running++;
				void task(index)
					.catch((error: unknown) => {
						failures.push({ index, error });
					})
					.finally(() => {
						running--;
						if (record !== undefined) busy.delete(record);
						fill();
					});
			}
			if (running === 0) resolve();
		};
		fill();
	});
	if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
}
