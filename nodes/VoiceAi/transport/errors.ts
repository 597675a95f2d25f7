import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Secrets } from './secrets';
import { API_CHECK_PATH } from '../../../credentials/urlRules';

export const shortened = (text: string, max: number) =>
	text.length > max ? `${text.slice(0, max - 3)}...` : text;

export const TIMEOUT = 'Voice AI did not answer in time';
const UNRESOLVED = 'The Voice AI host name could not be resolved';
const DROPPED = 'The connection to Voice AI was dropped';
/**
 * The client's error codes: what each says, whether it is retried; `unsent`: the request surely
 * never left. Codes not listed are not retried.
 */
export const CODES: Record<string, { says?: string; retry?: true; unsent?: true }> = {
	ECONNREFUSED: { says: 'Voice AI refused the connection', retry: true, unsent: true },
	ENOTFOUND: { says: UNRESOLVED, unsent: true },
	EAI_AGAIN: { says: UNRESOLVED, retry: true, unsent: true },
	ECONNABORTED: { says: TIMEOUT, retry: true },
	ETIMEDOUT: { says: TIMEOUT, retry: true },
	ECONNRESET: { says: DROPPED, retry: true },
	EPIPE: { says: DROPPED, retry: true },
	ESOCKETTIMEDOUT: { retry: true },
	EHOSTUNREACH: { retry: true },
	ENETUNREACH: { retry: true },
};

/**
 * n8n-core 2.x keeps the client's error as the `cause`; n8n-workflow 1.x its code as `httpCode`.
 */
export function errorCode(error: unknown, depth = 0): string | undefined {
	if (!error || typeof error !== 'object' || depth >= 5) return undefined;
	const { code, httpCode, cause } = error as Record<string, unknown>;
	for (const text of [code, httpCode])
		if (typeof text === 'string' && /^E[A-Z_]+$/.test(text)) return text;
	return errorCode(cause, depth + 1);
}

type ServiceFailure = { status: number; code?: string; serviceMessage?: string; field?: string };

export interface FailureContext {
	/** getNode() deep-copies the node: called only for an error. */
	node: () => INode;
	itemIndex?: number;
	target?: string;
	mayHaveApplied?: string;
	attempts: number;
	origin: string;
	code?: string;
	secrets: Secrets;
}

/** Every transport error is built here, so all it shows is redacted (docs/architecture.md). */
function apiError(
	{ node, secrets, itemIndex }: FailureContext,
	response: JsonObject,
	description: string,
	message = String(response.message),
): NodeApiError {
	return new NodeApiError(node(), secrets.redactForError(response), {
		message: secrets.redact(message),
		description: secrets.redact(description),
		httpCode: response.status === undefined ? undefined : String(response.status),
		itemIndex,
	});
}

const tried = ({ attempts }: FailureContext) =>
	attempts > 1 ? ` (after ${attempts} attempts)` : '';
const notRepeated = ({ mayHaveApplied }: FailureContext, otherwise: string) =>
	mayHaveApplied
		? `${mayHaveApplied} It was not repeated automatically so nothing gets duplicated: check before running it again.`
		: otherwise;

export function parseServiceFailure(status: number, data: unknown, mime = '', secrets: Secrets) {
	const failure: ServiceFailure = { status };
	// Redacted before it is cut: a cut never leaves part of a secret behind.
	const shown = (text: string) => shortened(secrets.redact(text).replace(/\s+/g, ' ').trim(), 500);
	if (typeof data === 'string') {
		const text = data.trim();
		try {
			data = JSON.parse(text);
		} catch {
			const html = /html/i.test(mime) || /^<(!doctype|html)/i.test(text);
			const message = html ? /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] : text;
			if (message?.trim()) failure.serviceMessage = shown(message);
			return failure;
		}
	}
	const error = (data as { error?: unknown } | null)?.error ?? data ?? {};
	const said = typeof error === 'string' ? { message: error } : error;
	const { code, message, field } = said as Record<string, unknown>;
	if (typeof code === 'string') failure.code = secrets.redact(code).slice(0, 100);
	if (typeof message === 'string') failure.serviceMessage = shown(message);
	if (typeof field === 'string') failure.field = secrets.redact(field).slice(0, 100);
	return failure;
}

const CLIENT_ERRORS: Record<number, [start: string, description: string]> = {
	400: ['Voice AI rejected the request', 'Correct the values named in the message and run again.'],
	401: [
		'Voice AI refused the API key (401): it is missing, malformed or revoked',
		'Create a new key in the Voice AI dashboard (Integrations, API access, Generate key), paste it into the Voice AI credential, then revoke the old key.',
	],
	403: [
		'Voice AI refused access (403)',
		'The key is valid but not allowed to do this. Check the key and the organization it belongs to.',
	],
	404: [
		'was not found (404)',
		'It does not exist, or it belongs to another organization than the API key in the credential. Check the id and that the key comes from the right organization.',
	],
	409: [
		'Voice AI reported a conflict (409)',
		'Something with the same identity already exists. Use a different value, or look the existing one up with a Get operation.',
	],
	413: [
		'The upload is too large for Voice AI (413)',
		"The service's size limit is not stated in its API specification; its answer above says what it allows. Send a smaller file.",
	],
	415: [
		'Voice AI does not accept this media type (415)',
		"The service's accepted media types are not stated in its API specification; its answer above says what it expects. Check the binary property's MIME type.",
	],
	429: [
		'Voice AI rate limit reached (429)',
		'The service limits requests per API key. Lower Concurrency or raise Max Attempts / Max Retry Wait under Options, or spread the work over time.',
	],
};

export function serviceError(failure: ServiceFailure, context: FailureContext): NodeApiError {
	const { status, field, serviceMessage } = failure;
	const said = serviceMessage ? `: ${serviceMessage}` : '';
	const known = CLIENT_ERRORS[status];
	let message = `Voice AI answered with status ${status}${said}`;
	let description = `An answer the node does not expect. Check the base URL in the credential (${context.origin}).`;
	if (status >= 500) {
		message = `The Voice AI service failed (${status})${said}${tried(context)}`;
		description = notRepeated(
			context,
			'A temporary failure on the service side. Run the workflow again later; if it keeps failing, contact Voice AI support.',
		);
	} else if (known) {
		const then = status === 429 ? tried(context) : status === 401 ? '' : said;
		message = `${status === 404 ? `${context.target ?? 'The resource'} ` : ''}${known[0]}${then}`;
		description =
			status === 400 && field
				? `The service refused the field '${field}'. Correct it in the node and run again.`
				: known[1];
	}
	return apiError(context, { ...failure, message }, description);
}

/** Only the origin is shown: a path may carry anything. */
export function redirectError(status: number, context: FailureContext, given?: string) {
	// Redacted before parsing too: the parser lower-cases and decodes a host, hiding a secret's form.
	const location = given && context.secrets.redact(given);
	const { origin } = context;
	const url = location && URL.canParse(location, origin) ? new URL(location, origin) : undefined;
	const where = url && (url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`);
	const message = `Voice AI answered ${status}, a redirect to ${where ?? 'an address it did not give'}; the node does not follow redirects`;
	const description =
		`Nothing was sent to ${where ?? 'the other address'}: requests carry the API key (and their body may carry SIP passwords or a webhook token), so they only ever go to the base URL of the credential (${context.origin}). ` +
		(where
			? `If ${where} is the right address of the Voice AI API, enter it as the base URL of the credential; otherwise correct the base URL.`
			: `Check the base URL of the credential (${context.origin}).`);
	return apiError(context, { status, message }, description);
}

export function transportError(problem: string, context: FailureContext): NodeApiError {
	const code = context.code ? ` (${context.code})` : '';
	const description = `${notRepeated(context, `Check that the base URL in the credential (${context.origin}) is right and the service is reachable, then run again.`)}${code}`;
	// The code goes in the description only: NodeApiError replaces the message of known codes.
	return apiError(context, { message: problem }, description, `${problem}${tried(context)}`);
}

export function baseUrlNotFoundError(said: string | undefined, context: FailureContext) {
	const asked = `${said ? ` (${said})` : ''}${context.target ? ` for ${context.target}` : ''}`;
	const message = `Voice AI answered 404${asked}, and the base URL answers 404 to GET ${API_CHECK_PATH} too: the Base URL does not point at the Voice AI API`;
	const description = `Check the Base URL in the Voice AI credential (${context.origin}, with its path) against your account documentation: the credential's test checks it the same way. Nothing was found or changed.`;
	return apiError(context, { status: 404, message, routeUnknown: true }, description);
}

export const isRouteUnknown = (error: unknown) =>
	error instanceof NodeApiError && error.errorResponse?.routeUnknown === true;

export function invalidValue(
	node: INode,
	itemIndex: number | undefined,
	field: { label: string; name?: string },
	problem: string,
	hint?: string,
): NodeOperationError {
	const item = itemIndex === undefined ? '' : ` in item ${itemIndex}`;
	const name = field.name ? ` (${field.name})` : '';
	const message = `Invalid '${field.label}'${item}: ${problem}`;
	const description = `Correct the '${field.label}' field${name} and run again. Nothing was sent to Voice AI for this item.`;
	return new NodeOperationError(node, message, { itemIndex, description: hint ?? description });
}
