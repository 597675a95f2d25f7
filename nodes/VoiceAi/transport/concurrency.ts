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
export class RequestGate {
	private limit: number;

	private running = 0;

	private successes = 0;

	private pausedUntil = 0;

	/** Items that gave their place up after a 429: they get one before a new item starts. */
	private readonly waiting: Array<() => void> = [];

	private fill = () => {};

	private readonly stopped = new AbortController();

	private combined?: { from: AbortSignal; signal: AbortSignal };

	constructor(private readonly max: number) {
		this.limit = Math.max(1, max);
	}

	/** After a hard failure: no item starts and no request goes out; waits end with RequestsStopped. */
	close(): void {
		if (this.stopped.signal.aborted) return;
		this.stopped.abort(new RequestsStopped());
		this.fill();
	}

	/** A signal for waits: it fires when the execution is cancelled or the gate closes. */
	signalWith(signal?: AbortSignal): AbortSignal {
		if (!signal) return this.stopped.signal;
		if (this.combined?.from !== signal)
			this.combined = { from: signal, signal: AbortSignal.any([signal, this.stopped.signal]) };
		return this.combined.signal;
	}

	/** Before each attempt: waits out a pause after a 429; throws RequestsStopped once closed. */
	async turn(signal?: AbortSignal): Promise<void> {
		for (let pause: number; (pause = this.pausedUntil - Date.now()) > 0; ) {
			await sleep(pause, this.signalWith(signal)).catch((error: unknown) => {
				if (!this.stopped.signal.aborted) throw error;
			});
			if (this.stopped.signal.aborted) break;
		}
		if (this.stopped.signal.aborted) throw new RequestsStopped();
	}

	succeeded(): void {
		if (this.limit < this.max && ++this.successes >= this.limit) {
			this.successes = 0;
			this.limit++;
			this.fill();
		}
	}

	/** A 429: everyone waits `waitMs`, and fewer items run afterwards. */
	rateLimited(waitMs: number): void {
		const now = Date.now();
		// Requests already in flight when the first 429 came back count as one signal, not many.
		if (this.pausedUntil <= now) {
			this.limit = Math.max(1, Math.ceil(this.limit / 2));
			this.successes = 0;
		}
		this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
	}

	/** After a 429 that will be repeated: the item gives its place up and waits for one under the new limit. */
	async requeue(): Promise<void> {
		this.running--;
		await new Promise<void>((resolve) => {
			this.waiting.push(resolve);
			this.fill();
		});
	}

	/**
	 * Runs `task` for indexes 0..count-1, started in input order. Indexes that `recordOf` gives the same
	 * record run one after another in input order; the others do not wait for them. Once a task throws,
	 * no new index starts; the error of the lowest failing index is rethrown after the running ones end.
	 */
	async forEachIndex(
		count: number,
		task: (index: number) => Promise<void>,
		recordOf?: (index: number) => string | undefined,
	): Promise<void> {
		const records = Array.from({ length: count }, (_, index) => recordOf?.(index));
		const busy = new Set<string | undefined>();
		// Indexes passed over while their record was busy: all below `next`, kept in input order.
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
			this.fill = () => {
				const closed = this.stopped.signal.aborted;
				while (this.waiting.length > 0 && (closed || this.running < this.limit)) {
					this.running++;
					this.waiting.shift()?.();
				}
				while (!closed && failures.length === 0 && this.running < this.limit) {
					const index = nextStartable();
					if (index === undefined) break;
					busy.add(records[index]);
					this.running++;
					void task(index)
						.catch((error: unknown) => {
							failures.push({ index, error });
						})
						.finally(() => {
							this.running--;
							busy.delete(records[index]);
							this.fill();
						});
				}
				if (this.running === 0 && this.waiting.length === 0) resolve();
			};
			this.fill();
		});
		if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
	}
}
