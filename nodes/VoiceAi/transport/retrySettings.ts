export interface RetrySettings {
	/** Wait for Retry-After and repeat after a 429 (never harmful: the service did nothing). */
	rateLimit: boolean;
	/** Repeat after 5xx, timeouts and dropped connections, only where `repeatable` says it is safe. */
	serverErrors: boolean;
	/** Attempts per request including the first; 1 turns retries off. */
	maxAttempts: number;
	/** Upper bound of one wait, whatever Retry-After asks for. */
	maxWaitMs: number;
	/** Time allowed for one attempt. */
	timeoutMs: number;
}

export const DEFAULT_RETRY: RetrySettings = {
	rateLimit: true,
	serverErrors: true,
	maxAttempts: 4,
	maxWaitMs: 60_000,
	timeoutMs: 30_000,
};

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function parseRetryAfter(text: unknown, now = Date.now()): number | undefined {
	if (typeof text !== 'string' || text.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoffMs(attempt: number, capMs: number): number {
	const ceiling = Math.min(capMs, 500 * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
