import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { NOT_SENT_CODES, TRANSIENT_CODES, describeCode, errorCode } from './connectionFailure';
import type { VoiceAiContext } from './context';
import type { VoiceAiCredential } from './credential';
import { voiceAiCredential } from './credential';
import { parseServiceFailure, redirectError, serviceError, transportError } from './errors';
import { headerValue } from './httpText';
import type { ApiPath } from './path';
import { buildPath } from './path';
import type { Answer, FullResponse } from './readAnswer';
import { MAX_ANSWER_BYTES, MAX_ERROR_BYTES, discard, readAnswer } from './readAnswer';
import type { RequestGate } from './requestGate';
import type { RetrySettings } from './retrySettings';
import { DEFAULT_RETRY, backoffMs, parseRetryAfter } from './retrySettings';
import { baseUrlAnswers404, baseUrlNotFoundError } from './routeCheck';
import { successValue } from './successValue';
import { API_CHECK_PATH } from '../../../credentials/voiceAiBaseUrl';

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
	/** This request is the check of the base URL after a 404 (routeCheck.ts): its own 404 is not checked. */
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
				mayHaveApplied: neverSent || repeatable ? undefined : policy.mayHaveApplied,
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
		throw serviceError(this.getNode(), failure, {
			...context,
			mayHaveApplied: status >= 500 && !repeatable ? policy.mayHaveApplied : undefined,
		});
	}
}
