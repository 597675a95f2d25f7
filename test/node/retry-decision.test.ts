/**
 * The transport's retry rules as a table, without HTTP: each outcome of an attempt (a client error
 * code, a status, a 2xx that gives no record, a 429 with its Retry-After) and what follows it. The
 * rules are those of docs/operations.md (Options: Retry on Rate Limit, Retry on Server Errors, Max
 * Attempts, Max Retry Wait); the statuses those of the spec's Errors table, 429 and redirects.
 */
import type { Outcome, RetryDecision, RetryRules } from '../../nodes/VoiceAi/transport/pacing';
import { retryDecision } from '../../nodes/VoiceAi/transport/pacing';

const NOW = Date.parse('2026-01-01T00:00:00Z');
// Jitter 0: a backoff is half its ceiling, 500 ms × 2^(attempt − 1) capped by Max Retry Wait.
const rules = (changes: Partial<RetryRules> = {}): RetryRules => ({
	rateLimit: true,
	serverErrors: true,
	maxAttempts: 4,
	maxWaitMs: 60_000,
	repeatable: true,
	attempt: 1,
	now: NOW,
	jitter: 0,
	...changes,
});
const done: RetryDecision = { then: 'done' };
const fail: RetryDecision = { then: 'fail' };
const retryAfter = (afterMs: number): RetryDecision => ({ then: 'retry', afterMs });
const rateLimited = (ms: number, retries = true): RetryDecision =>
	retries ? { then: 'retry', afterMs: ms, rateLimitedMs: ms } : { then: 'fail', rateLimitedMs: ms };

const lastAttempt = rules({ attempt: 4 });
const unsafe = rules({ repeatable: false }); // Agent Create: sending it twice may create two agents
const noServerRetry = rules({ serverErrors: false });

const table: Array<[string, Outcome, RetryRules, RetryDecision]> = [
	// Answers
	['200', { status: 200 }, rules(), done],
	['201 to a write that may not be repeated', { status: 201 }, unsafe, done],
	[
		'2xx too large, even where repeating is safe',
		{ status: 200, read: 'too large' },
		rules(),
		fail,
	],
	[
		'2xx read with no record: repeated',
		{ status: 200, read: 'unusable' },
		rules(),
		retryAfter(250),
	],
	['2xx read with no record, last attempt', { status: 200, read: 'unusable' }, lastAttempt, fail],
	[
		'2xx read with no record, server retries off',
		{ status: 200, read: 'unusable' },
		noServerRetry,
		fail,
	],
	['301 (redirects are refused)', { status: 301 }, rules(), fail],
	['307', { status: 307 }, rules(), fail],
	['400', { status: 400 }, rules(), fail],
	['401', { status: 401 }, rules(), fail],
	['404', { status: 404 }, rules(), fail],
	['409', { status: 409 }, rules(), fail],
	['500', { status: 500 }, rules(), retryAfter(250)],
	[
		'500, attempt 3: the backoff doubles each time',
		{ status: 500 },
		rules({ attempt: 3 }),
		retryAfter(1000),
	],
	['500, full jitter', { status: 500 }, rules({ attempt: 3, jitter: 0.999_999 }), retryAfter(2000)],
	[
		'503, the backoff capped by Max Retry Wait',
		{ status: 503 },
		rules({ attempt: 3, maxWaitMs: 600 }),
		retryAfter(300),
	],
	['500 to a write that may not be repeated', { status: 500 }, unsafe, fail],
	['500, last attempt', { status: 500 }, lastAttempt, fail],
	['500, server retries off', { status: 500 }, noServerRetry, fail],
	['500, Max Attempts 1', { status: 500 }, rules({ maxAttempts: 1 }), fail],
	// 429: every request of the gate waits the pause out, retried or not
	['429, Retry-After in seconds', { status: 429, retryAfter: '2' }, rules(), rateLimited(2000)],
	['429, Retry-After 0.5 s', { status: 429, retryAfter: '0.5' }, rules(), rateLimited(500)],
	[
		'429, Retry-After as a date',
		{ status: 429, retryAfter: new Date(NOW + 7000).toUTCString() },
		rules(),
		rateLimited(7000),
	],
	[
		'429, a date already past',
		{ status: 429, retryAfter: new Date(NOW - 7000).toUTCString() },
		rules(),
		rateLimited(0),
	],
	[
		'429, Retry-After beyond Max Retry Wait',
		{ status: 429, retryAfter: '3600' },
		rules(),
		rateLimited(60_000),
	],
	['429 without Retry-After: a backoff', { status: 429 }, rules({ attempt: 2 }), rateLimited(500)],
	[
		'429, unreadable Retry-After: a backoff',
		{ status: 429, retryAfter: 'soon' },
		rules(),
		rateLimited(250),
	],
	[
		'429 to a write that may not be repeated: a limited request did nothing',
		{ status: 429, retryAfter: '1' },
		unsafe,
		rateLimited(1000),
	],
	['429, server retries off', { status: 429, retryAfter: '1' }, noServerRetry, rateLimited(1000)],
	['429, last attempt', { status: 429, retryAfter: '1' }, lastAttempt, rateLimited(1000, false)],
	[
		'429, rate-limit retries off',
		{ status: 429, retryAfter: '1' },
		rules({ rateLimit: false }),
		rateLimited(1000, false),
	],
	// No answer: the client's error code
	['timeout (ETIMEDOUT)', { code: 'ETIMEDOUT' }, rules(), retryAfter(250)],
	['ECONNABORTED', { code: 'ECONNABORTED' }, rules(), retryAfter(250)],
	['dropped (ECONNRESET)', { code: 'ECONNRESET' }, rules(), retryAfter(250)],
	['EPIPE', { code: 'EPIPE' }, rules(), retryAfter(250)],
	['ESOCKETTIMEDOUT', { code: 'ESOCKETTIMEDOUT' }, rules(), retryAfter(250)],
	['EHOSTUNREACH', { code: 'EHOSTUNREACH' }, rules(), retryAfter(250)],
	['ENETUNREACH', { code: 'ENETUNREACH' }, rules(), retryAfter(250)],
	['EAI_AGAIN (a name lookup to try again)', { code: 'EAI_AGAIN' }, rules(), retryAfter(250)],
	['ENOTFOUND (no such host)', { code: 'ENOTFOUND' }, rules(), fail],
	['an unknown code', { code: 'EPROTO' }, rules(), fail],
	['no code (Stop, or an error without one)', { code: undefined }, rules(), fail],
	['timeout of a write that may not be repeated', { code: 'ETIMEDOUT' }, unsafe, fail],
	['ECONNRESET of a write that may not be repeated', { code: 'ECONNRESET' }, unsafe, fail],
	[
		'ECONNREFUSED of a write that may not be repeated: it never left',
		{ code: 'ECONNREFUSED' },
		unsafe,
		retryAfter(250),
	],
	['ECONNREFUSED, server retries off', { code: 'ECONNREFUSED' }, noServerRetry, fail],
	['ECONNREFUSED, last attempt', { code: 'ECONNREFUSED' }, lastAttempt, fail],
	['timeout, server retries off', { code: 'ETIMEDOUT' }, noServerRetry, fail],
	['timeout, last attempt', { code: 'ETIMEDOUT' }, lastAttempt, fail],
];

describe('retryDecision', () => {
	it.each(table)('%s', (_name, outcome, given, decision) => {
		expect(retryDecision(outcome, given)).toEqual(decision);
	});

	it('never waits longer than Max Retry Wait before a retry, whatever the attempt and jitter', () => {
		for (const attempt of [1, 2, 5, 10, 30])
			for (const jitter of [0, 0.5, 0.999])
				for (const outcome of [{ status: 500 }, { status: 429 }, { code: 'ETIMEDOUT' }]) {
					const decision = retryDecision(
						outcome,
						rules({ attempt, jitter, maxAttempts: 50, maxWaitMs: 5000 }),
					);
					expect(decision.then).toBe('retry');
					if (decision.then === 'retry') expect(decision.afterMs).toBeLessThanOrEqual(5000);
				}
	});
});
