/** Connection errors where the request certainly never reached the service, so any request may be repeated. */
export const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
/** Failures worth another attempt; anything else (a bad URL, a blocked host, a cancelled run) is final. */
export const TRANSIENT_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
]);

const SYSTEM_ERROR_CODE = /^E[A-Z_]+$/;

/**
 * The system error code of a failed request (ECONNRESET, ECONNABORTED, ...), in each n8n line's shape.
 * n8n-core 2.x keeps the HTTP client's error as the `cause` of the NodeApiError it throws. n8n-workflow
 * 1.x loses that cause (a class field resets it) and keeps the code only as the error's `httpCode`.
 */
export function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const { code, httpCode } = current as { code?: unknown; httpCode?: unknown };
		for (const candidate of [code, httpCode])
			if (typeof candidate === 'string' && SYSTEM_ERROR_CODE.test(candidate)) return candidate;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

export function describeCode(code: string | undefined): string {
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return 'Voice AI did not answer in time';
	if (code === 'ECONNREFUSED') return 'Voice AI refused the connection';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return 'The Voice AI host name could not be resolved';
	if (code === 'ECONNRESET' || code === 'EPIPE') return 'The connection to Voice AI was dropped';
	return `The request to Voice AI failed${code ? ` (${code})` : ''}`;
}
