import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { Answer, FullResponse } from './answer';
import {
	MAX_ANSWER_BYTES,
	MAX_ERROR_BYTES,
	decoded,
	discard,
	headerValue,
	readAnswer,
	shortened,
	successValue,
} from './answer';
import type { RequestGate } from './concurrency';
import type { VoiceAiContext, VoiceAiCredential } from './credential';
import { voiceAiCredential } from './credential';
import {
	baseUrlNotFoundError,
	invalidValue,
	parseServiceFailure,
	redirectError,
	serviceError,
	transportError,
} from './errors';
import { API_CHECK_PATH } from '../../../credentials/voiceAiBaseUrl';

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

const DEFAULT_RETRY: RetrySettings = {
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

function backoffMs(attempt: number, capMs: number): number {
	const ceiling = Math.min(capMs, 500 * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Connection errors where the request certainly never reached the service, so any request may be repeated. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
/** Failures worth another attempt; anything else (a bad URL, a blocked host, a cancelled run) is final. */
const TRANSIENT_CODES = new Set([
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
function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const { code, httpCode } = current as { code?: unknown; httpCode?: unknown };
		for (const candidate of [code, httpCode])
			if (typeof candidate === 'string' && SYSTEM_ERROR_CODE.test(candidate)) return candidate;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function describeCode(code: string | undefined): string {
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return 'Voice AI did not answer in time';
	if (code === 'ECONNREFUSED') return 'Voice AI refused the connection';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return 'The Voice AI host name could not be resolved';
	if (code === 'ECONNRESET' || code === 'EPIPE') return 'The connection to Voice AI was dropped';
	return `The request to Voice AI failed${code ? ` (${code})` : ''}`;
}

// A 404 means "this record does not exist" only if the base URL reaches the API: a base URL whose path
// the service does not have answers 404 to every route. The node then reads API_CHECK_PATH once per
// execution (the credential is read once per execution), as the credential test does.

const checks = new WeakMap<VoiceAiCredential, Promise<boolean>>();

/**
 * Does the base URL answer 404 to API_CHECK_PATH too? `read` sends that GET; a 404 from it means yes,
 * any answer or other failure means the base URL reaches something that serves the API (or the node
 * cannot tell), and the 404 stays the record's.
 */
async function baseUrlAnswers404(
	credential: VoiceAiCredential,
	read: () => Promise<unknown>,
): Promise<boolean> {
	let check = checks.get(credential);
	if (!check) {
		check = read().then(
			() => false,
			(error: unknown) => error instanceof NodeApiError && error.httpCode === '404',
		);
		checks.set(credential, check);
	}
	return await check;
}

interface RequestPolicy {
	itemIndex?: number;
	/**
	 * May the request be sent again after a 5xx, timeout or reset, i.e. would a repeat not duplicate an
	 * effect? Defaults to true for GET, PUT, PATCH and DELETE and false for POST.
	 */
	repeatable?: boolean;
	retry?: Partial<RetrySettings>;
	/** Shared by the requests of one execution: bounds requests in flight and backs off on 429. */
	gate?: RequestGate;
	/** Named in a 404 message, e.g. `Chatbot "cb_1"`. */
	target?: string;
	/** For non-repeatable requests: what may have happened when no clear answer came back. */
	mayHaveApplied?: string;
	/** The credential as `voiceAiCredential` returned it, so it is read and checked once per execution. */
	credential?: VoiceAiCredential;
	/** This request is the check of the base URL after a 404 (baseUrlAnswers404): its own 404 is not checked. */
	routeCheck?: boolean;
}

/**
 * One call to the Voice AI API with the credential the node selected (voiceAiCredential); returns the parsed JSON body (or, for a
 * write answered with no JSON, `{ success, status, body }`). The key travels only in a header (the
 * credential's authenticate block) and only to the base URL: redirects are never followed. Failures
 * become NodeApiError without any secret in them. 429 is retried after Retry-After; 5xx, timeouts and
 * resets only when the policy says repeating is safe.
 */
export async function voiceAiApiRequest(
	this: VoiceAiContext,
	method: IHttpRequestMethods,
	path: string | ApiPath,
	body?: IDataObject | IDataObject[] | Buffer,
	extra: Partial<IHttpRequestOptions> = {},
	policy: RequestPolicy = {},
): Promise<unknown> {
	const credential = policy.credential ?? (await voiceAiCredential.call(this, policy.itemIndex));
	try {
		return await send.call(this, method, path, body, extra, policy, credential);
	} catch (error) {
		// The one place the transport's errors lose every secret of the execution (the key, the base URL's
		// user info, what the requests carried), whoever called: the node, the trigger, list searches.
		// Other errors (a stop, a cancelled wait) carry none and go on as they are.
		throw error instanceof NodeApiError || error instanceof NodeOperationError
			? credential.secrets.redactError(error)
			: error;
	}
}

async function send(
	this: VoiceAiContext,
	method: IHttpRequestMethods,
	path: string | ApiPath,
	body: IDataObject | IDataObject[] | Buffer | undefined,
	extra: Partial<IHttpRequestOptions>,
	policy: RequestPolicy,
	credential: VoiceAiCredential,
): Promise<unknown> {
	const { itemIndex, gate } = policy;
	const retry: RetrySettings = { ...DEFAULT_RETRY, ...policy.retry };
	const repeatable = policy.repeatable ?? method !== 'POST';
	// Named in an error only where the request may have arrived and was not repeated.
	const mayHaveApplied = repeatable ? undefined : policy.mayHaveApplied;
	const { baseUrl, origin, secrets } = credential;
	// Before anything is sent: a path value that would change the path is refused, and what the body
	// carries (SIP passwords, tokens in URLs) is known to the redaction of everything shown later.
	// n8n's getNode() deep-copies the node: only a refusal needs it.
	const url = `${baseUrl}${buildPath(() => this.getNode(), path, itemIndex)}`;
	if (body !== undefined && !Buffer.isBuffer(body)) secrets.collect(body);
	const options: IHttpRequestOptions = {
		method,
		url,
		json: true,
		timeout: retry.timeoutMs,
		...extra,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
		// n8n would send the credential's headers (and for 307/308 the body) on to any origin.
		disableFollowRedirect: true,
		// Read by the node, so the size limit holds while reading rather than after.
		encoding: 'stream',
	};
	if (body !== undefined) options.body = body;
	const maxAttempts = Math.max(1, retry.maxAttempts);
	// Waits end early when the execution is stopped, or when another item failed and the gate closed.
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const waitSignal = gate ? gate.signalWith(signal) : signal;

	for (let attempt = 1; ; attempt++) {
		const context = { itemIndex, target: policy.target, attempts: attempt, origin, mayHaveApplied };
		const canRetry = attempt < maxAttempts;
		if (gate) await gate.acquire(signal);
		let response: FullResponse;
		let answer: Answer | undefined;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				credential.decrypted.type,
				{ ...options, headers: { ...options.headers } },
				{ credentialsDecrypted: credential.decrypted },
			)) as FullResponse;
			const status = response.statusCode;
			if (status >= 300 && status < 400) discard(response.body);
			else
				answer = await readAnswer(
					response,
					status < 300 ? MAX_ANSWER_BYTES : MAX_ERROR_BYTES,
					status >= 300,
				);
		} catch (error) {
			gate?.release('other');
			const code = errorCode(error);
			const neverSent = code !== undefined && NOT_SENT_CODES.has(code);
			const transient = code !== undefined && TRANSIENT_CODES.has(code);
			if (transient && canRetry && retry.serverErrors && (repeatable || code === 'ECONNREFUSED')) {
				await sleep(backoffMs(attempt, retry.maxWaitMs), waitSignal);
				continue;
			}
			const problem =
				transient || code
					? describeCode(code)
					: `The request to Voice AI failed: ${String((error as Error).message)}`;
			throw transportError(this.getNode(), problem, {
				...context,
				code,
				mayHaveApplied: neverSent ? undefined : mayHaveApplied,
			});
		}

		const status = response.statusCode;
		if (answer === undefined) {
			gate?.release('other');
			throw redirectError(this.getNode(), status, headerValue(response.headers.location), {
				...context,
				requestUrl: url,
			});
		}

		if (status >= 200 && status < 300) {
			gate?.release('success');
			if ('tooLarge' in answer) {
				const size = answer.declared
					? `${(answer.bytes / 1048576).toFixed(1)} MiB`
					: `more than ${MAX_ANSWER_BYTES / 1048576} MiB`;
				throw transportError(
					this.getNode(),
					`Voice AI answered with ${size}, too large for the node (limit ${MAX_ANSWER_BYTES / 1048576} MiB); the transfer was stopped`,
					context,
				);
			}
			const value = successValue(answer, method, status);
			if (value !== undefined) return value;
			if (canRetry && retry.serverErrors && repeatable) {
				await sleep(backoffMs(attempt, retry.maxWaitMs), waitSignal);
				continue;
			}
			throw transportError(
				this.getNode(),
				`Voice AI answered ${status} with a body that is not JSON`,
				context,
			);
		}

		const said = 'text' in answer ? answer.text : 'value' in answer ? answer.value : undefined;
		const failure = parseServiceFailure(
			status,
			said,
			headerValue(response.headers['content-type']),
			secrets,
		);
		if (status === 429) {
			const asked = parseRetryAfter(headerValue(response.headers['retry-after']));
			const wait = Math.min(retry.maxWaitMs, asked ?? backoffMs(attempt, retry.maxWaitMs));
			// Pause the others before freeing this slot, so no waiting request slips out in between.
			gate?.rateLimited(wait);
			gate?.release('rateLimited');
			if (canRetry && retry.rateLimit) {
				if (!gate) await sleep(wait, signal);
				continue;
			}
			throw serviceError(this.getNode(), failure, context);
		}

		gate?.release('other');
		if (status >= 500 && canRetry && retry.serverErrors && repeatable) {
			await sleep(backoffMs(attempt, retry.maxWaitMs), waitSignal);
			continue;
		}
		if (status === 404 && !policy.routeCheck) {
			const check = async () =>
				await voiceAiApiRequest.call(
					this,
					'GET',
					API_CHECK_PATH,
					undefined,
					{},
					{ ...policy, credential, repeatable: true, routeCheck: true, target: undefined },
				);
			if (await baseUrlAnswers404(credential, check))
				throw baseUrlNotFoundError(this.getNode(), context, failure.message);
		}
		throw serviceError(this.getNode(), failure, context);
	}
}

/** A value that goes into a request path, with the field it came from (named when it cannot be used). */
export interface PathValue {
	field: { name: string; label: string };
	value: string;
}

export interface ApiPath {
	readonly pieces: readonly string[];
	readonly values: readonly PathValue[];
}

/** Why a value cannot be one path segment, or undefined when it can. */
function segmentProblem(value: string): string | undefined {
	if (value === '') return 'it is empty';
	if (value === '.' || value === '..')
		return `${JSON.stringify(value)} would address another resource than the one meant`;
	if (value.includes('/'))
		return `${JSON.stringify(shortened(value, 60))} contains a slash, which would change the request path`;
	return undefined;
}

/**
 * The path a request goes to. Values of an `ApiPath` are checked and encoded; a plain path (built by an
 * operation with encodeURIComponent) is checked segment by segment, so no id can turn into `.`, `..`, an
 * empty segment or extra segments whatever way the path was built. Throws before anything is sent.
 */
export function buildPath(
	node: INode | (() => INode),
	path: string | ApiPath,
	itemIndex?: number,
): string {
	const refused = (field: { label: string; name?: string }, problem: string) =>
		invalidValue(typeof node === 'function' ? node() : node, itemIndex, field, problem);
	if (typeof path !== 'string') {
		let text = path.pieces[0];
		path.values.forEach(({ field, value }, index) => {
			const problem = segmentProblem(String(value));
			if (problem) throw refused(field, problem);
			text += encodeURIComponent(String(value)) + path.pieces[index + 1];
		});
		return text;
	}
	const end = path.search(/[?#]/);
	const segments = (end === -1 ? path : path.slice(0, end)).split('/');
	for (let index = 1; index < segments.length; index++) {
		const problem = segmentProblem(decoded(segments[index]));
		if (problem)
			throw refused(
				{ label: 'request path' },
				`in ${path}, ${problem === 'it is empty' ? 'a segment is empty' : problem}`,
			);
	}
	return path;
}
