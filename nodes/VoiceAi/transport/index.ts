import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { API_KEY_PATTERN } from '../../../credentials/VoiceAiApi.credentials';
import { BASE_URL_RULE, parseBaseUrl } from '../../../credentials/voiceAiBaseUrl';
import type { RequestGate } from './requestGate';
import { parseServiceFailure, redirectError, serviceError, transportError } from './errors';
import type { ApiPath } from './path';
import { buildPath } from './path';
import { Secrets } from './secrets';

export type { ApiPath, PathValue } from './path';
export { apiPath } from './path';
export { Secrets } from './secrets';
export { RequestGate, RequestsStopped, forEachIndex } from './requestGate';

type VoiceAiContext =
	| IExecuteFunctions
	| IHookFunctions
	| ILoadOptionsFunctions
	| IWebhookFunctions;

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
}

interface VoiceAiCredential {
	/** Origin and path prefix as the URL parser reads the credential's Base URL (parseBaseUrl). */
	baseUrl: string;
	/** Scheme, host and port actually contacted: what messages show as the base URL. */
	origin: string;
	/**
	 * Handed to every request, so n8n does not load and decrypt the credential again each time (in n8n
	 * that is a database read per request); the credential's authenticate function still applies it.
	 */
	decrypted: ICredentialsDecrypted;
	/**
	 * The key, the base URL's user info, and every secret a request of this execution sent: removed from
	 * every error and (by the router) every output item.
	 */
	secrets: Secrets;
}

/** Larger answers are refused rather than turned into one enormous item; the transfer stops at the limit. */
const MAX_ANSWER_BYTES = 25 * 1024 * 1024;
/** Of an error answer only the start is read: the message shows 500 characters of it at most. */
const MAX_ERROR_BYTES = 64 * 1024;
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

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** A readable stream (the request asks for `encoding: 'stream'`); text or parsed JSON from other helpers. */
	body: unknown;
}

interface BodyStream extends AsyncIterable<Buffer | string> {
	destroy(error?: Error): void;
	on(event: string, listener: (...args: never[]) => void): void;
	off(event: string, listener: (...args: never[]) => void): void;
}

/** What was read of an answer: its text, or a value the HTTP helper already parsed, or that it was too large. */
type Answer =
	| { text: string }
	| { value: unknown }
	| { tooLarge: true; bytes: number; declared: boolean };

/** Errors that say the credential cannot be used: they stop the node whatever Continue On Fail says. */
const unusableCredentialErrors = new WeakSet<Error>();

export function isUnusableCredentialError(error: unknown): boolean {
	return error instanceof Error && unusableCredentialErrors.has(error);
}

function unusableCredential(
	context: VoiceAiContext,
	message: string,
	description: string,
	itemIndex?: number,
): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	unusableCredentialErrors.add(error);
	return error;
}

/**
 * Reads the credential and checks it before anything is sent. `secrets`: the execution's collection,
 * which gets the key (a new one when not given).
 */
export async function voiceAiCredential(
	this: VoiceAiContext,
	itemIndex?: number,
	secrets = new Secrets(),
): Promise<VoiceAiCredential> {
	const credentials = await this.getCredentials('voiceAiApi', itemIndex);
	secrets.add(credentials.apiKey);
	// A Base URL with user info is refused; its password is still hidden wherever it could show.
	if (typeof credentials.baseUrl === 'string') secrets.addFromUrl(credentials.baseUrl.trim());
	const baseUrl = parseBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok) {
		throw unusableCredential(
			this,
			`The Voice AI credential has no valid base URL: the Base URL ${baseUrl.problem}`,
			`Open the Voice AI credential. ${BASE_URL_RULE} Nothing was sent.`,
			itemIndex,
		);
	}
	if (!API_KEY_PATTERN.test(String(credentials.apiKey ?? '').trim())) {
		throw unusableCredential(
			this,
			'The API key in the Voice AI credential does not start with ct_',
			'Voice AI keys start with ct_. Paste the whole key from the dashboard (Integrations, API access) into the credential.',
			itemIndex,
		);
	}
	const id = this.getNode().credentials?.voiceAiApi?.id ?? '';
	return {
		baseUrl: `${baseUrl.url.origin}${baseUrl.url.pathPrefix}`,
		origin: baseUrl.url.origin,
		decrypted: { id, name: 'voiceAiApi', type: 'voiceAiApi', data: credentials },
		secrets,
	};
}

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

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' || text.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoffMs(attempt: number, capMs: number): number {
	const ceiling = Math.min(capMs, 500 * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function isStream(body: unknown): body is BodyStream {
	return (
		body !== null &&
		typeof body === 'object' &&
		typeof (body as { pipe?: unknown }).pipe === 'function'
	);
}

function header(response: FullResponse, name: string): string | undefined {
	const value = response.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/**
 * Leaving a loop over the body closes the connection. Only a loop: n8n's HTTP client hands out a
 * wrapper stream that closes the connection under it only once reading has started, so a body is
 * never dropped unread (it would hold the connection until the service gives up).
 */
async function close(body: BodyStream): Promise<void> {
	for await (const chunk of body) {
		void chunk;
		break;
	}
}

/** Drops an answer without waiting for it (a redirect's body is of no use). */
function discard(body: unknown): void {
	if (!isStream(body)) return;
	close(body).catch((error: unknown) => {
		// Only the connection of an answer already refused could fail here: nothing to report.
		void error;
	});
}

function textOf(chunks: Buffer[], bytes: number): { text: string } {
	const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes)).toString('utf8');
	return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/**
 * Reads an answer up to `limit` bytes. Past the limit (or when the declared length is already past it)
 * reading stops and the connection is closed, so memory stays bounded whatever the service sends.
 * `truncate` keeps the first `limit` bytes instead of refusing (error answers: only their start is shown).
 * Stream events rather than `for await`: the async iterator cost more CPU per request than the rest of
 * the transport together (docs/benchmark.md).
 */
async function readAnswer(
	response: FullResponse,
	limit: number,
	truncate: boolean,
): Promise<Answer> {
	const { body } = response;
	if (!isStream(body)) {
		if (typeof body === 'string') return { text: body };
		if (Buffer.isBuffer(body)) return { text: body.toString('utf8') };
		return { value: body };
	}
	const declared = Number(header(response, 'content-length'));
	return await new Promise<Answer>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		const stop = () => {
			body.off('data', onData);
			body.off('end', onEnd);
			body.off('error', onError);
			body.off('close', onClose);
		};
		// Reading has started when a chunk arrives, so destroying the stream closes the connection.
		const finish = (answer: Answer) => {
			stop();
			body.destroy();
			resolve(answer);
		};
		const onData = (chunk: Buffer | string) => {
			if (!truncate && declared > limit)
				return finish({ tooLarge: true, bytes: declared, declared: true });
			const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			if (bytes + data.length <= limit) {
				chunks.push(data);
				bytes += data.length;
				return;
			}
			if (!truncate) return finish({ tooLarge: true, bytes: bytes + data.length, declared: false });
			chunks.push(data.subarray(0, limit - bytes));
			finish(textOf(chunks, limit));
		};
		const onEnd = () => {
			stop();
			resolve(textOf(chunks, bytes));
		};
		const onError = (error: Error) => {
			stop();
			reject(error);
		};
		const onClose = () =>
			onError(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
		body.on('data', onData);
		body.on('end', onEnd);
		body.on('error', onError);
		body.on('close', onClose);
	});
}

/**
 * A 2xx answer as the operation gets it. JSON is parsed. An empty body says the call succeeded and
 * with which status. A write (anything but GET) succeeded whatever it answered, so a body that is not
 * JSON comes back as text; a read needs JSON, so for a GET that is not a usable answer (`undefined`).
 */
function successValue(
	answer: { text: string } | { value: unknown },
	method: IHttpRequestMethods,
	status: number,
): unknown {
	if ('value' in answer) return answer.value ?? { success: true, status };
	const text = answer.text;
	if (text.trim() === '') return { success: true, status };
	try {
		return JSON.parse(text);
	} catch {
		return method === 'GET' ? undefined : { success: true, status, body: text };
	}
}

/**
 * One call to the Voice AI API with the `voiceAiApi` credential; returns the parsed JSON body (or, for a
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
	const { itemIndex, gate } = policy;
	const retry: RetrySettings = { ...DEFAULT_RETRY, ...policy.retry };
	const repeatable = policy.repeatable ?? method !== 'POST';
	const credential = policy.credential ?? (await voiceAiCredential.call(this, itemIndex));
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
		const context = { itemIndex, target: policy.target, attempts: attempt, origin, secrets };
		const canRetry = attempt < maxAttempts;
		if (gate) await gate.acquire(signal);
		let response: FullResponse;
		let answer: Answer | undefined;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'voiceAiApi',
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
				mayHaveApplied: neverSent || repeatable ? undefined : policy.mayHaveApplied,
			});
		}

		const status = response.statusCode;
		if (answer === undefined) {
			gate?.release('other');
			throw redirectError(this.getNode(), status, header(response, 'location'), {
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
					{
						...context,
						mayHaveApplied: repeatable ? undefined : policy.mayHaveApplied,
					},
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
				{
					...context,
					mayHaveApplied: repeatable ? undefined : policy.mayHaveApplied,
				},
			);
		}

		const said = 'text' in answer ? answer.text : 'value' in answer ? answer.value : undefined;
		const failure = parseServiceFailure(status, said, header(response, 'content-type'), secrets);
		if (status === 429) {
			const asked = parseRetryAfter(response.headers['retry-after']);
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
		throw serviceError(this.getNode(), failure, {
			...context,
			mayHaveApplied: status >= 500 && !repeatable ? policy.mayHaveApplied : undefined,
		});
	}
}
