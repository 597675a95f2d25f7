// When a request goes out: again after a failed attempt (retryDecision), within the execution's one
// limit (RequestGate), after waits that Stop ends.
import { sleep } from 'n8n-workflow';

import { CODES } from './errors';

/** The retry Options, each described in docs/operations.md. */
export const DEFAULT_RETRY = {
	rateLimit: true,
	serverErrors: true,
	maxAttempts: 4,
	maxWaitMs: 60_000,
	timeoutMs: 30_000,
};

export function parseRetryAfter(text: unknown, now = Date.now()): number | undefined {
	if (typeof text !== 'string' || text.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoffMs(attempt: number, capMs: number, jitter: number): number {
	const ceiling = Math.min(capMs, 500 * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (jitter * ceiling) / 2);
}

/**
 * What one attempt ended in: no answer (the client's error code, if any), or a status; for a 2xx,
 * an answer too large or a read that gives no record; for a 429, its Retry-After.
 */
export type Outcome =
	| { code: string | undefined }
	| { status: number; read?: 'too large' | 'unusable'; retryAfter?: string };

export interface RetryRules extends Omit<typeof DEFAULT_RETRY, 'timeoutMs'> {
	/** Sending it twice duplicates nothing. */
	repeatable: boolean;
	/** 1 for the first attempt. */
	attempt: number;
	now: number;
	/** In [0, 1): where a backoff falls between half its ceiling and the ceiling. */
	jitter: number;
}

/** `rateLimitedMs`: a 429's pause, which every request of the gate waits out. */
export type RetryDecision =
	| { then: 'done'; rateLimitedMs?: undefined }
	| { then: 'retry'; afterMs: number; rateLimitedMs?: number }
	| { then: 'fail'; rateLimitedMs?: number };

/** The retry rules of docs/operations.md: pure, so a table of outcomes can check them. */
export function retryDecision(outcome: Outcome, rules: RetryRules): RetryDecision {
	const canRetry = rules.attempt < rules.maxAttempts;
	const repeat = canRetry && rules.serverErrors && rules.repeatable;
	const backoff = backoffMs(rules.attempt, rules.maxWaitMs, rules.jitter);
	const fail = { then: 'fail' } as const;
	if ('code' in outcome) {
		const { code } = outcome;
		// A refused connection never reached the service: retried even where repeating is unsafe.
		const unsentRetry = canRetry && rules.serverErrors && code === 'ECONNREFUSED';
		const retries = code !== undefined && CODES[code]?.retry && (repeat || unsentRetry);
		return retries ? { then: 'retry', afterMs: backoff } : fail;
	}
	const { status } = outcome;
	if (status < 300 && outcome.read === undefined) return { then: 'done' };
	if (status < 300)
		return outcome.read === 'unusable' && repeat ? { then: 'retry', afterMs: backoff } : fail;
	if (status === 429) {
		const asked = parseRetryAfter(outcome.retryAfter, rules.now);
		const rateLimitedMs = Math.min(rules.maxWaitMs, asked ?? backoff);
		const retries = canRetry && rules.rateLimit;
		return retries
			? { then: 'retry', afterMs: rateLimitedMs, rateLimitedMs }
			: { ...fail, rateLimitedMs };
	}
	return status >= 500 && repeat ? { then: 'retry', afterMs: backoff } : fail;
}

export class RequestsStopped extends Error {
	constructor() {
		super('Not sent: another item of this execution failed');
		this.name = 'RequestsStopped';
	}
}

const reasonOf = (signal: AbortSignal): Error =>
	signal.reason instanceof Error ? signal.reason : new Error('The execution was stopped');

/**
 * Settles as `promise` does, or rejects as soon as `signal` aborts: the wait ends, not the work.
 */
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
 *
 * Items start through `forEachIndex`; each request waits for `turn`, then reports `succeeded` or
 * `rateLimited`; `close` stops everything after a hard failure.
 */
export class RequestGate {
	/** Aborted by Stop, or once the gate is closed. */
	readonly signal: AbortSignal;
	private readonly stopped = new AbortController();
	private limit: number;
	private itemsRunning = 0;
	private requestsOut = 0;
	private successes = 0;
	private pausedUntil = 0;
	/** Requests waiting for a place; woken all at once, each checks again. */
	private waiting: Array<() => void> = [];
	/** Starts items while there is room (forEachIndex sets it). */
	private fill = () => {};

	constructor(
		private readonly max: number,
		cancel?: AbortSignal,
	) {
		this.limit = Math.max(1, max);
		this.signal = cancel ? AbortSignal.any([cancel, this.stopped.signal]) : this.stopped.signal;
	}

	/** After a hard failure: no item starts, no request goes out (docs/security.md). */
	close(): void {
		this.stopped.abort(new RequestsStopped());
		this.wake();
		this.fill();
	}

	/**
	 * Before each attempt: waits out a 429's pause and for a place. Call the result once answered.
	 */
	async turn(): Promise<() => void> {
		for (;;) {
			this.ifStopped();
			const paused = this.pausedUntil - Date.now();
			if (paused > 0) await pause(paused, this.signal).catch(this.ifStopped);
			else if (this.requestsOut >= this.limit)
				await untilAborted(
					new Promise<void>((resolve) => this.waiting.push(resolve)),
					this.signal,
				).catch(this.ifStopped);
			else break;
		}
		this.requestsOut++;
		let held = true;
		return () => {
			if (!held) return;
			held = false;
			this.requestsOut--;
			this.wake();
		};
	}

	succeeded(): void {
		if (this.limit < this.max && ++this.successes >= this.limit) {
			this.successes = 0;
			this.limit++;
			this.wake();
			this.fill();
		}
	}

	rateLimited(waitMs: number): void {
		const now = Date.now();
		// Requests already in flight when the first 429 came back count as one signal, not many.
		if (this.pausedUntil <= now) {
			this.limit = Math.max(1, Math.ceil(this.limit / 2));
			this.successes = 0;
		}
		this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
	}

	/**
	 * Starts in input order; indexes of one record run one at a time. After a failure nothing new
	 * starts, and the error of the lowest failing index is thrown once the running ones end.
	 */
	async forEachIndex(
		count: number,
		task: (index: number) => Promise<void>,
		recordOf?: (index: number) => string | undefined,
	): Promise<void> {
		const order = startOrder(count, recordOf);
		const failures: Array<{ index: number; error: unknown }> = [];
		await new Promise<void>((resolve) => {
			this.fill = () => {
				while (!this.signal.aborted && failures.length === 0 && this.itemsRunning < this.limit) {
					const index = order.next();
					if (index === undefined) break;
					this.itemsRunning++;
					void task(index)
						.catch((error: unknown) => void failures.push({ index, error }))
						.finally(() => {
							this.itemsRunning--;
							order.ended(index);
							this.fill();
						});
				}
				if (this.itemsRunning === 0) resolve();
			};
			this.fill();
		});
		if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
		this.ifStopped();
	}

	private wake(): void {
		const woken = this.waiting;
		this.waiting = [];
		for (const resolve of woken) resolve();
	}

	private readonly ifStopped = (): void => {
		if (this.stopped.signal.aborted) throw new RequestsStopped();
		if (this.signal.aborted) throw reasonOf(this.signal);
	};
}

/** The order items start in: input order, but an index whose record is busy waits for it. */
function startOrder(count: number, recordOf?: (index: number) => string | undefined) {
	const records = Array.from({ length: count }, (_, index) => recordOf?.(index));
	const busy = new Set<string | undefined>();
	// Indexes passed over while their record was busy: all below `next`, in input order.
	const deferred: number[] = [];
	let next = 0;
	const isFree = (index: number) => records[index] === undefined || !busy.has(records[index]);
	const startable = (): number | undefined => {
		const at = deferred.findIndex(isFree);
		if (at >= 0) return deferred.splice(at, 1)[0];
		while (next < count) {
			if (isFree(next)) return next++;
			deferred.push(next++);
		}
		return undefined;
	};
	return {
		next(): number | undefined {
			const index = startable();
			if (index !== undefined) busy.add(records[index]);
			return index;
		},
		ended: (index: number) => busy.delete(records[index]),
	};
}
