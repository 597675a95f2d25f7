// One request: its credential, its path, attempt after attempt, its answer read, or its error.
import type {
	IAllExecuteFunctions,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	CODES,
	type FailureContext,
	TIMEOUT,
	baseUrlNotFoundError,
	errorCode,
	invalidValue,
	parseServiceFailure,
	redirectError,
	serviceError,
	shortened,
	transportError,
} from './errors';
import {
	DEFAULT_RETRY,
	type Outcome,
	type RequestGate,
	deadline,
	pause,
	retryDecision,
	untilAborted,
} from './pacing';
import { Secrets, decoded } from './secrets';
import {
	API_CHECK_PATH,
	API_KEY_PATTERN,
	BASE_URL_RULE,
	HALF_CHARACTER,
	LONE_SURROGATE,
	parseBaseUrl,
} from '../../../credentials/urlRules';

export type VoiceAiContext = IAllExecuteFunctions;

export const AUTHENTICATION = {
	apiKey: 'voiceAiApi',
	apiKeyAndSipLogin: 'voiceAiWithSipLoginApi',
} as const;

/** Not a parameter read: the trigger and list searches have no item to evaluate it for. */
export const authenticationOf = (node: INode): keyof typeof AUTHENTICATION =>
	node.parameters.authentication === 'apiKeyAndSipLogin' ? 'apiKeyAndSipLogin' : 'apiKey';
export const credentialTypeOf = (node: INode) => AUTHENTICATION[authenticationOf(node)];

/** Errors of an unusable credential stop the node whatever Continue On Fail says. */
const unusableCredentialErrors = new WeakSet<Error>();
export const isUnusableCredentialError = (error: unknown) =>
	unusableCredentialErrors.has(error as Error);

export async function voiceAiCredential(
	this: VoiceAiContext,
	itemIndex?: number,
	secrets = new Secrets(),
) {
	const node = this.getNode();
	const type = credentialTypeOf(node);
	const credentials = await this.getCredentials(type, itemIndex);
	const unusable = (message: string, description: string) => {
		const error = new NodeOperationError(node, message, { itemIndex, description });
		unusableCredentialErrors.add(error);
		return error;
	};
	// Before the check: the refusal of a Base URL with user info must not show its password.
	if (typeof credentials.baseUrl === 'string') secrets.addFromUrl(credentials.baseUrl.trim());
	const baseUrl = parseBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok)
		throw unusable(
			`The Voice AI credential has no valid base URL: the Base URL ${baseUrl.problem}`,
			`Open the Voice AI credential. ${BASE_URL_RULE} Nothing was sent.`,
		);
	if (!API_KEY_PATTERN.test(String(credentials.apiKey ?? '').trim()))
		throw unusable(
			'The API key in the Voice AI credential does not start with ct_',
			'Voice AI keys start with ct_. Paste the whole key from the dashboard (Integrations, API access) into the credential.',
		);
	// Held only now: hiding a value that is not a key (a space, "ct_") would cut the refusal apart.
	secrets.add(credentials.apiKey);
	return {
		baseUrl: baseUrl.url.base,
		origin: baseUrl.url.origin,
		/** Handed to every request, so n8n does not decrypt it again. */
		decrypted: { id: node.credentials?.[type]?.id ?? '', name: type, type, data: credentials },
		secrets,
	};
}
export type VoiceAiCredential = Awaited<ReturnType<typeof voiceAiCredential>>;

export const headerValue = (value: string | string[] | undefined) =>
	Array.isArray(value) ? value[0] : value;

export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** For answers whose shape the spec does not give. */
export function listIn(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (body === null || typeof body !== 'object') return undefined;
	const arrays = Object.values(body).filter((value) => Array.isArray(value));
	return arrays.length === 1 ? (arrays[0] as unknown[]) : undefined;
}

const MAX_ANSWER_MIB = 25;
const MIB = 1024 * 1024;
const tooLarge = (size: string) => ({
	tooLarge: `Voice AI answered with ${size}, too large for the node (limit ${MAX_ANSWER_MIB} MiB); the transfer was stopped`,
});
const MAX_ERROR_BYTES = 64 * 1024;

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** A stream (`encoding: 'stream'`), or text or JSON from other helpers. */
	body: unknown;
}

type Answer = { text: string } | { value: unknown } | { tooLarge: string };

/** How long after Timeout n8n's client may take to end a request itself: part of the bound. */
export const CLOSE_GRACE_MS = 1_000;

/** Ends the wait of an attempt whose time is up: retried as a timeout is. */
const timedOut = () => Object.assign(new Error(TIMEOUT), { code: 'ETIMEDOUT' });

const discard = (response: FullResponse) =>
	(response?.body as { destroy?: () => void } | undefined)?.destroy?.();

// A redirect is read only to close it: n8n's wrapper closes the stream under it once reading
// starts. Stream events, not `for await`: its async iterator cost more CPU than the rest of the
// transport. `ended` (the attempt's time is up, or Stop) closes the stream and ends the reading
// with its reason.
async function readAnswer(response: FullResponse, ended: AbortSignal): Promise<Answer | undefined> {
	const { body, statusCode: status } = response;
	const redirect = status >= 300 && status < 400;
	if (typeof (body as { pipe?: unknown } | null)?.pipe !== 'function') {
		if (redirect) return undefined;
		if (typeof body === 'string') return { text: body };
		return Buffer.isBuffer(body) ? { text: body.toString('utf8') } : { value: body };
	}
	const stream = body as NodeJS.ReadableStream & { destroy(): void };
	const truncate = status >= 300;
	const limit = redirect ? 0 : truncate ? MAX_ERROR_BYTES : MAX_ANSWER_MIB * MIB;
	const declared = Number(headerValue(response.headers['content-length']));
	const reading = new Promise<Answer>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		// A promise settles once: the 'close' after 'end' or stop() changes nothing.
		const stop = (answer: Answer) => {
			resolve(answer);
			stream.destroy();
		};
		const text = () => ({
			text: withoutBom((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes)).toString()),
		});
		stream.on('data', (chunk: Buffer | string) => {
			const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			if (!truncate && declared > limit)
				return stop(tooLarge(`${(declared / MIB).toFixed(1)} MiB`));
			if (!truncate && bytes + data.length > limit)
				return stop(tooLarge(`more than ${MAX_ANSWER_MIB} MiB`));
			chunks.push(data.subarray(0, limit - bytes));
			bytes = Math.min(limit, bytes + data.length);
			if (truncate && bytes === limit) stop(text());
		});
		stream.on('end', () => resolve(text()));
		stream.on('error', reject);
		stream.on('close', () =>
			reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })),
		);
		const abandon = () => {
			reject(ended.reason);
			stream.destroy();
		};
		if (ended.aborted) abandon();
		else ended.addEventListener('abort', abandon, { once: true });
		stream.on('close', () => ended.removeEventListener('abort', abandon));
	});
	// A redirect is refused whatever its body: nothing to report if reading it fails.
	return redirect ? void reading.catch(() => undefined) : await reading;
}

/** Whether the base URL answers 404 to API_CHECK_PATH too: asked once per credential read. */
const routeChecks = new WeakMap<VoiceAiCredential, Promise<boolean>>();

/** `repeatable`: sending it twice duplicates nothing. */
export interface RequestPolicy extends Pick<
	FailureContext,
	'itemIndex' | 'target' | 'mayHaveApplied'
> {
	repeatable?: boolean;
	retry?: Partial<typeof DEFAULT_RETRY>;
	gate?: RequestGate;
	credential?: VoiceAiCredential;
	/** The check after a 404: its own 404 is not checked. */
	routeCheck?: boolean;
	/**
	 * A GET answered 2xx with an empty body: `list`, it lists nothing (`[]`); `refuse`, it fails as a
	 * body that is not JSON does; otherwise `undefined` (nothing, never a made-up record).
	 */
	emptyRead?: 'list' | 'refuse';
}

/** One request of an operation; types.ts's `send` builds its path from the spec's form. */
export type ApiCall = (
	method: IHttpRequestMethods,
	path: string | ApiPath,
	body?: IDataObject | IDataObject[] | Buffer,
	extra?: Partial<IHttpRequestOptions>,
) => Promise<unknown>;

/**
 * The requests of an action run: for each item, an ApiCall with the item's policy. The credential
 * is read at the run's first request (an operation that sends nothing needs none), then shared.
 */
export function runRequests(
	ctx: VoiceAiContext,
	secrets: Secrets,
	policy: Omit<RequestPolicy, 'itemIndex' | 'target' | 'credential'>,
) {
	let credential: Promise<VoiceAiCredential> | undefined;
	return (itemIndex: number, target?: string): ApiCall =>
		async (method, path, body, extra) =>
			await voiceAiApiRequest.call(ctx, method, path, body, extra, {
				...policy,
				itemIndex,
				target,
				credential: await (credential ??= voiceAiCredential.call(ctx, 0, secrets)),
			});
}

/**
 * One request, attempt after attempt: each attempt's outcome goes to `retryDecision`, which says
 * done, retry after so many ms, or fail; a failure becomes the error the user reads.
 */
export async function voiceAiApiRequest(
	this: VoiceAiContext,
	method: IHttpRequestMethods,
	path: string | ApiPath,
	body?: IDataObject | IDataObject[] | Buffer,
	extra: Partial<IHttpRequestOptions> = {},
	policy: RequestPolicy = {},
): Promise<unknown> {
	const request = await prepareRequest.call(this, method, path, body, extra, policy);
	const { context, retry, gate, signal } = request;
	for (; ; context.attempts++) {
		const attempt = await sendAttempt.call(this, request);
		if ('status' in attempt && attempt.status < 300) gate?.succeeded();
		const read = 'status' in attempt ? readSuccess(attempt, method, policy.emptyRead) : undefined;
		const decision = retryDecision(outcomeOf(attempt, read), {
			...retry,
			repeatable: request.repeatable,
			attempt: context.attempts,
			now: Date.now(),
			jitter: Math.random(),
		});
		if (decision.rateLimitedMs !== undefined) gate?.rateLimited(decision.rateLimitedMs);
		if (decision.then === 'done') return read && 'value' in read ? read.value : undefined;
		if (decision.then === 'fail') throw await failureOf.call(this, request, attempt, read);
		// With a gate, its next turn waits a 429's pause out, holding no place meanwhile.
		if (!gate || decision.rateLimitedMs === undefined)
			await pause(decision.afterMs, gate?.signal ?? signal);
	}
}

/** A request ready for its attempts: options, credential, retry rules, what its errors show. */
interface PreparedRequest {
	method: IHttpRequestMethods;
	options: IHttpRequestOptions;
	credential: VoiceAiCredential;
	policy: RequestPolicy;
	retry: typeof DEFAULT_RETRY;
	repeatable: boolean;
	gate?: RequestGate;
	/** Stop: n8n aborts its own requests; this ends every wait of the node as well. */
	signal?: AbortSignal;
	context: FailureContext;
}

async function prepareRequest(
	this: VoiceAiContext,
	method: IHttpRequestMethods,
	path: string | ApiPath,
	body: IDataObject | IDataObject[] | Buffer | undefined,
	extra: Partial<IHttpRequestOptions>,
	policy: RequestPolicy,
): Promise<PreparedRequest> {
	const credential = policy.credential ?? (await voiceAiCredential.call(this, policy.itemIndex));
	const { itemIndex, gate, target } = policy;
	const retry = { ...DEFAULT_RETRY, ...policy.retry };
	const repeatable = policy.repeatable ?? method !== 'POST';
	const { baseUrl, origin, secrets } = credential;
	const node = () => this.getNode();
	// The body's SIP passwords and URL tokens are hidden in everything shown later.
	if (body !== undefined && !Buffer.isBuffer(body)) secrets.collect(body);
	const options: IHttpRequestOptions = {
		method,
		url: baseUrl + buildPath(node, path, itemIndex),
		json: true,
		timeout: retry.timeoutMs,
		...extra,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
		// n8n would send the credential's headers (and for 307/308 the body) on to any origin.
		disableFollowRedirect: true,
		encoding: 'stream', // the size limit holds while reading
	};
	if (body !== undefined) options.body = body;
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal?.() : undefined;
	const context: FailureContext = { attempts: 1, node, itemIndex, target, origin, secrets };
	if (!repeatable) context.mayHaveApplied = policy.mayHaveApplied;
	return { method, options, credential, policy, retry, repeatable, gate, signal, context };
}

/**
 * An attempt: no answer (the client's error), or a status with its answer (none for a redirect).
 */
type Attempt =
	| { error: unknown }
	| { status: number; headers: FullResponse['headers']; answer: Answer | undefined };

/** Takes a place at the gate, sends, reads the answer within Timeout, gives the place back. */
async function sendAttempt(this: VoiceAiContext, request: PreparedRequest): Promise<Attempt> {
	const { retry, signal, credential, options } = request;
	const release = await request.gate?.turn();
	// Timeout bounds the whole answer, headers to last byte. n8n's client ends a request whose
	// socket stays idle that long (and closes it): the wait for the headers gives it a moment more.
	const answered = new AbortController();
	const expired = deadline(retry.timeoutMs, answered.signal, timedOut);
	const late = deadline(retry.timeoutMs + CLOSE_GRACE_MS, answered.signal, timedOut);
	const [ended, headersLate] = [expired, late].map((one) =>
		signal ? AbortSignal.any([one, signal]) : one,
	);
	try {
		const requesting = this.helpers.httpRequestWithAuthentication.call(
			this,
			credential.decrypted.type,
			{ ...options, headers: { ...options.headers } },
			{ credentialsDecrypted: credential.decrypted },
		) as Promise<FullResponse>;
		const response = await untilAborted(requesting, headersLate).catch((error: unknown) => {
			void requesting.then(discard, () => undefined);
			throw error;
		});
		const answer = await readAnswer(response, ended);
		return { status: response.statusCode, headers: response.headers, answer };
	} catch (error) {
		return { error };
	} finally {
		answered.abort();
		release?.();
	}
}

/** A 2xx answer's value, or why it has none: too large, or a read that gives no record. */
type SuccessRead = { value: unknown } | { tooLarge: string } | { unusable: string };

// A write succeeded whatever it answered; a GET must answer JSON, and an empty one is no record.
function readSuccess(
	{ status, answer }: { status: number; answer: Answer | undefined },
	method: IHttpRequestMethods,
	emptyRead: RequestPolicy['emptyRead'],
): SuccessRead | undefined {
	if (status >= 300 || answer === undefined) return undefined;
	if ('tooLarge' in answer) return answer;
	const done = { success: true, status };
	const empty = 'value' in answer ? (answer.value ?? '') === '' : answer.text.trim() === '';
	if (empty && method !== 'GET') return { value: done };
	if (empty && emptyRead === 'list') return { value: [] };
	if (empty && emptyRead !== 'refuse') return { value: undefined };
	if (empty)
		return {
			unusable: `Voice AI answered ${status} with an empty body to a read: there is nothing to output`,
		};
	if ('value' in answer) return { value: answer.value };
	try {
		return { value: JSON.parse(answer.text) };
	} catch {
		if (method !== 'GET') return { value: { ...done, body: answer.text } };
	}
	return { unusable: `Voice AI answered ${status} with a body that is not JSON` };
}

function outcomeOf(attempt: Attempt, read: SuccessRead | undefined): Outcome {
	if ('error' in attempt) return { code: errorCode(attempt.error) };
	const { status, headers } = attempt;
	if (status === 429) return { status, retryAfter: headerValue(headers['retry-after']) };
	if (read && 'tooLarge' in read) return { status, read: 'too large' };
	return read && 'unusable' in read ? { status, read: 'unusable' } : { status };
}

/** The error of an attempt not retried. */
async function failureOf(
	this: VoiceAiContext,
	request: PreparedRequest,
	attempt: Attempt,
	read: SuccessRead | undefined,
): Promise<Error> {
	const { context, policy, credential } = request;
	if ('error' in attempt) {
		const code = errorCode(attempt.error);
		const known = code === undefined ? undefined : CODES[code];
		if (known?.unsent) context.mayHaveApplied = undefined;
		context.code = code;
		const why = code ? ` (${code})` : `: ${String((attempt.error as Error).message)}`;
		return transportError(known?.says ?? `The request to Voice AI failed${why}`, context);
	}
	const { status, answer } = attempt;
	const header = (name: string) => headerValue(attempt.headers[name]);
	if (answer === undefined) return redirectError(status, context, header('location'));
	if (read && 'tooLarge' in read) return transportError(read.tooLarge, context);
	if (read && 'unusable' in read) return transportError(read.unusable, context);
	const said = 'text' in answer ? answer.text : 'value' in answer ? answer.value : undefined;
	const failure = parseServiceFailure(status, said, header('content-type'), credential.secrets);
	if (status === 404 && !policy.routeCheck && (await baseUrlUnknown.call(this, request)))
		return baseUrlNotFoundError(failure.serviceMessage, context);
	return serviceError(failure, context);
}

/**
 * After a 404: whether the base URL answers 404 to API_CHECK_PATH too (asked once per credential).
 */
async function baseUrlUnknown(this: VoiceAiContext, request: PreparedRequest): Promise<boolean> {
	const { policy, credential, gate, signal } = request;
	const checkPolicy = { ...policy, credential, repeatable: true, routeCheck: true };
	delete checkPolicy.emptyRead;
	const check =
		routeChecks.get(credential) ??
		voiceAiApiRequest.call(this, 'GET', API_CHECK_PATH, undefined, {}, checkPolicy).then(
			() => false,
			(error: unknown) => {
				// Stopped (Stop, or another item failed): every item sharing it stops too.
				if (!(error instanceof NodeApiError)) throw error;
				return error.httpCode === '404';
			},
		);
	routeChecks.set(credential, check);
	// Shared by the items of the run: each stops waiting for it on Stop.
	return await untilAborted(check, gate?.signal ?? signal);
}

/** Even percent-encoded, within the 8 KB request line servers accept (no 414 or 431). */
const MAX_PATH_VALUE = 512;

export function pathValueProblem(value: string): string | undefined {
	if (value === '') return 'it is empty';
	if (value === '.' || value === '..')
		return `${JSON.stringify(value)} would address another resource than the one meant`;
	if (value.includes('/'))
		return `${JSON.stringify(shortened(value, 60))} contains a slash, which would change the request path`;
	if (LONE_SURROGATE.test(value)) return `it ${HALF_CHARACTER}`;
	if (value.length > MAX_PATH_VALUE)
		return `it has ${value.length} characters, more than ${MAX_PATH_VALUE} (the longest id this node sends)`;
	return undefined;
}

/** `values[i]` goes between `pieces[i]` and `pieces[i + 1]`. */
export interface ApiPath {
	readonly pieces: readonly string[];
	readonly values: ReadonlyArray<{ field: { name: string; label: string }; value: string }>;
}

/** No value may add or drop a segment. */
export function buildPath(node: () => INode, path: string | ApiPath, itemIndex?: number): string {
	if (typeof path !== 'string')
		return path.values.reduce((text, { field, value }, index) => {
			const problem = pathValueProblem(String(value));
			if (problem) throw invalidValue(node(), itemIndex, field, problem);
			return text + encodeURIComponent(String(value)) + path.pieces[index + 1];
		}, path.pieces[0]);
	for (const segment of path.split(/[?#]/, 1)[0].split('/').slice(1)) {
		const problem = pathValueProblem(decoded(segment));
		const said = problem === 'it is empty' ? 'a segment is empty' : problem;
		if (problem)
			throw invalidValue(node(), itemIndex, { label: 'request path' }, `in ${path}, ${said}`);
	}
	return path;
}
