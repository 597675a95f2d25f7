import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/** What the service said, reduced to the fields of its error body (never the request, so never the key). */
export interface ServiceFailure {
	status: number;
	code?: string;
	message?: string;
	field?: string;
}

export interface FailureContext {
	itemIndex?: number;
	/** e.g. `Chatbot "cb_123"`, used in 404 messages. */
	target?: string;
	/** Set when the request may have created something: the message then says to check before repeating. */
	mayHaveApplied?: string;
	attempts: number;
}

const KEY_PATTERN = /ct_[A-Za-z0-9_-]+/g;

/** Removes anything shaped like an API key from text that came from elsewhere. */
export function redactKeys(text: string): string {
	return text.replace(KEY_PATTERN, 'ct_***');
}

/** Reads the shared error body `{ error: { status, code, message, field } }`; other shapes give only the status. */
export function parseServiceFailure(status: number, body: unknown): ServiceFailure {
	const failure: ServiceFailure = { status };
	let data = body;
	if (typeof data === 'string') {
		try {
			data = JSON.parse(data);
		} catch {
			return failure;
		}
	}
	const error = (data as { error?: unknown } | null)?.error ?? data;
	if (error && typeof error === 'object' && !Array.isArray(error)) {
		const { code, message, field } = error as Record<string, unknown>;
		if (typeof code === 'string') failure.code = code.slice(0, 100);
		if (typeof message === 'string') failure.message = redactKeys(message.slice(0, 500));
		if (typeof field === 'string') failure.field = field.slice(0, 100);
	} else if (typeof error === 'string') {
		failure.message = redactKeys(error.slice(0, 500));
	}
	return failure;
}

function explain(failure: ServiceFailure, context: FailureContext): { message: string; description: string } {
	const said = failure.message ? `: ${failure.message}` : '';
	const tried = context.attempts > 1 ? ` (after ${context.attempts} attempts)` : '';
	switch (failure.status) {
		case 400:
			return {
				message: `Voice AI rejected the request${said}`,
				description: failure.field
					? `The service refused the field '${failure.field}'. Correct it in the node and run again.`
					: 'Correct the values named in the message and run again.',
			};
		case 401:
			return {
				message: 'Voice AI refused the API key (401): it is missing, malformed or revoked',
				description:
					'Create a new key in the Voice AI dashboard (Integrations, API access, Generate key), paste it into the Voice AI credential, then revoke the old key.',
			};
		case 403:
			return {
				message: `Voice AI refused access (403)${said}`,
				description: 'The key is valid but not allowed to do this. Check the key and the organization it belongs to.',
			};
		case 404:
			return {
				message: `${context.target ?? 'The resource'} was not found (404)${said}`,
				description:
					'It does not exist, or it belongs to another organization than the API key in the credential. Check the id and that the key comes from the right organization.',
			};
		case 409:
			return {
				message: `Voice AI reported a conflict (409)${said}`,
				description: 'Something with the same identity already exists. Use a different value, or look the existing one up with a Get operation.',
			};
		case 413:
			return {
				message: `The upload is too large for Voice AI (413)${said}`,
				description: 'Send a smaller file (images up to 5 MiB each).',
			};
		case 415:
			return {
				message: `Voice AI does not accept this media type (415)${said}`,
				description: 'Send a PNG, JPEG, GIF, WebP or SVG image.',
			};
		case 429:
			return {
				message: `Voice AI rate limit reached (429)${tried}`,
				description:
					'The service limits requests per API key. Lower Concurrency or raise Max Attempts / Max Retry Wait under Options, or spread the work over time.',
			};
		default:
			if (failure.status >= 500) {
				return {
					message: `The Voice AI service failed (${failure.status})${tried}`,
					description: context.mayHaveApplied
						? `${context.mayHaveApplied} It was not repeated automatically so nothing gets duplicated: check before running it again.`
						: 'A temporary failure on the service side. Run the workflow again later; if it keeps failing, contact Voice AI support.',
				};
			}
			return {
				message: `Voice AI answered with status ${failure.status}${said}`,
				description: 'An answer the node does not expect. Check the base URL in the credential.',
			};
	}
}

/** A `NodeApiError` for a failed response, with a message a workflow builder can act on. */
export function serviceError(node: INode, failure: ServiceFailure, context: FailureContext): NodeApiError {
	const { message, description } = explain(failure, context);
	const response: JsonObject = { status: failure.status, message };
	if (failure.code) response.code = failure.code;
	if (failure.message) response.serviceMessage = failure.message;
	if (failure.field) response.field = failure.field;
	return new NodeApiError(node, response, {
		message,
		description,
		httpCode: String(failure.status),
		itemIndex: context.itemIndex,
	});
}

/** A `NodeApiError` for a request that got no usable answer (refused connection, timeout, reset, garbage). */
export function transportError(
	node: INode,
	problem: string,
	context: FailureContext & { code?: string; baseUrl: string },
): NodeApiError {
	const tried = context.attempts > 1 ? ` (after ${context.attempts} attempts)` : '';
	const code = context.code ? ` (${context.code})` : '';
	const description = context.mayHaveApplied
		? `${context.mayHaveApplied} It was not repeated automatically so nothing gets duplicated: check before running it again.${code}`
		: `Check that the base URL in the credential (${context.baseUrl}) is right and the service is reachable, then run again.${code}`;
	// The code goes into the description only: NodeApiError replaces the message of known connection codes.
	const response: JsonObject = { message: problem };
	return new NodeApiError(node, response, {
		message: `${problem}${tried}`,
		description,
		itemIndex: context.itemIndex,
	});
}
