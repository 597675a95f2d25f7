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
import type { RequestGate } from '../helpers/concurrency';
import { parseServiceFailure, redactKeys, serviceError, transportError } from '../helpers/errors';

export type VoiceAiContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | IWebhookFunctions;

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

export interface RequestPolicy {
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

export interface VoiceAiCredential {
	/** Without trailing slashes. */
	baseUrl: string;
	/**
	 * Handed to every request, so n8n does not load and decrypt the credential again each time (in n8n
	 * that is a database read per request); the credential's authenticate function still applies it.
	 */
	decrypted: ICredentialsDecrypted;
}

/** Larger answers are refused rather than turned into one enormous item. */
export const MAX_ANSWER_BYTES = 25 * 1024 * 1024;
const BASE_URL = /^https?:\/\/[^\s/?#]+/i;
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
	body: unknown;
}

/** Reads the credential and checks it before anything is sent. */
export async function voiceAiCredential(this: VoiceAiContext, itemIndex?: number): Promise<VoiceAiCredential> {
	const credentials = await this.getCredentials('voiceAiApi', itemIndex);
	const node = this.getNode();
	const baseUrl = String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '');
	if (!BASE_URL.test(baseUrl)) {
		throw new NodeOperationError(node, 'The Voice AI credential has no valid base URL', {
			itemIndex,
			description: 'Open the Voice AI credential and enter a base URL that starts with http:// or https://.',
		});
	}
	if (!API_KEY_PATTERN.test(String(credentials.apiKey ?? '').trim())) {
		throw new NodeOperationError(node, 'The API key in the Voice AI credential does not start with ct_', {
			itemIndex,
			description:
				'Voice AI keys start with ct_. Paste the whole key from the dashboard (Integrations, API access) into the credential.',
		});
	}
	const id = node.credentials?.voiceAiApi?.id ?? '';
	return { baseUrl, decrypted: { id, name: 'voiceAiApi', type: 'voiceAiApi', data: credentials } };
}

function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const { code } = current as { code?: unknown };
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function describeCode(code: string | undefined): string {
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return 'Voice AI did not answer in time';
	if (code === 'ECONNREFUSED') return 'Voice AI refused the connection';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The Voice AI host name could not be resolved';
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

/** A 2xx body must be JSON (or empty); anything else is treated like a failed answer. */
function readBody(body: unknown): { ok: true; value: unknown } | { ok: false } {
	if (typeof body !== 'string') return { ok: true, value: body ?? {} };
	if (body.trim() === '') return { ok: true, value: {} };
	try {
		return { ok: true, value: JSON.parse(body) };
	} catch {
		return { ok: false };
	}
}

/**
 * One call to the Voice AI API with the `voiceAiApi` credential; returns the parsed JSON body.
 * The key travels only in a header (the credential's authenticate block). Failures become NodeApiError.
 * 429 is retried after Retry-After; 5xx, timeouts and resets only when the policy says repeating is safe.
 */
export async function voiceAiApiRequest(
	this: VoiceAiContext,
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject | IDataObject[] | Buffer,
	extra: Partial<IHttpRequestOptions> = {},
	policy: RequestPolicy = {},
): Promise<unknown> {
	const { itemIndex, gate } = policy;
	const retry: RetrySettings = { ...DEFAULT_RETRY, ...policy.retry };
	const repeatable = policy.repeatable ?? method !== 'POST';
	const credential = policy.credential ?? (await voiceAiCredential.call(this, itemIndex));
	const { baseUrl } = credential;
	const options: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		json: true,
		timeout: retry.timeoutMs,
		...extra,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
	};
	if (body !== undefined) options.body = body;
	const maxAttempts = Math.max(1, retry.maxAttempts);
	// Waits end early when the execution is stopped.
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;

	for (let attempt = 1; ; attempt++) {
		const context = { itemIndex, target: policy.target, attempts: attempt, baseUrl };
		const canRetry = attempt < maxAttempts;
		if (gate) await gate.acquire(signal);
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'voiceAiApi',
				{ ...options, headers: { ...options.headers } },
				{ credentialsDecrypted: credential.decrypted },
			)) as FullResponse;
		} catch (error) {
			gate?.release('other');
			const code = errorCode(error);
			const neverSent = code !== undefined && NOT_SENT_CODES.has(code);
			const transient = code !== undefined && TRANSIENT_CODES.has(code);
			if (transient && canRetry && retry.serverErrors && (repeatable || code === 'ECONNREFUSED')) {
				await sleep(backoffMs(attempt, retry.maxWaitMs), signal);
				continue;
			}
			const problem = transient || code ? describeCode(code) : `The request to Voice AI failed: ${redactKeys(String((error as Error).message))}`;
			throw transportError(this.getNode(), problem, {
				...context,
				code,
				mayHaveApplied: neverSent || repeatable ? undefined : policy.mayHaveApplied,
			});
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			gate?.release('success');
			const size = Math.max(Number(response.headers['content-length']) || 0, typeof response.body === 'string' ? response.body.length : 0);
			if (size > MAX_ANSWER_BYTES) {
				throw transportError(this.getNode(), `Voice AI answered with ${(size / 1048576).toFixed(1)} MiB, too large for the node (limit ${MAX_ANSWER_BYTES / 1048576} MiB)`, {
					...context,
					mayHaveApplied: repeatable ? undefined : policy.mayHaveApplied,
				});
			}
			const parsed = readBody(response.body);
			if (parsed.ok) return parsed.value;
			if (canRetry && retry.serverErrors && repeatable) {
				await sleep(backoffMs(attempt, retry.maxWaitMs), signal);
				continue;
			}
			throw transportError(this.getNode(), `Voice AI answered ${status} with a body that is not JSON`, {
				...context,
				mayHaveApplied: repeatable ? undefined : policy.mayHaveApplied,
			});
		}

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
			throw serviceError(this.getNode(), parseServiceFailure(status, response.body), context);
		}

		gate?.release('other');
		if (status >= 500 && canRetry && retry.serverErrors && repeatable) {
			await sleep(backoffMs(attempt, retry.maxWaitMs), signal);
			continue;
		}
		throw serviceError(this.getNode(), parseServiceFailure(status, response.body), {
			...context,
			mayHaveApplied: status >= 500 && !repeatable ? policy.mayHaveApplied : undefined,
		});
	}
}
