import { sleep } from 'n8n-workflow';

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

	constructor(private readonly max: number) {
		this.limit = max;
	}

	get inFlightLimit(): number {
		return this.limit;
	}

	/** `signal`: the execution's cancel signal, so a stopped execution does not sit out a pause. */
	async acquire(signal?: AbortSignal): Promise<void> {
		for (;;) {
			const pause = this.pausedUntil - Date.now();
			if (pause > 0) {
				await sleep(pause, signal);
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
 * Runs `task` for indexes 0..count-1 with at most `concurrency` running at once. Once a task throws,
 * no new index starts; the error of the lowest failing index is rethrown after the running ones finish.
 */
export async function forEachIndex(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<void>,
): Promise<void> {
	let next = 0;
	const failures: Array<{ index: number; error: unknown }> = [];
	const worker = async () => {
		while (failures.length === 0 && next < count) {
			const index = next++;
			try {
				await task(index);
			} catch (error) {
				failures.push({ index, error });
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
}
