import type { IDataObject } from 'n8n-workflow';

import { isPlainObject, setOwn, withoutBom } from '../VoiceAi/transport';

/** The fields of a delivery the contract names; anything else is a variable or an unknown extra. */
export const ENVELOPE_FIELDS = [
	'event',
	'conversation_id',
	'source',
	'agent_id',
	'chatbot_id',
	'completed_at',
	'variables',
] as const;

/** One request carries at most this many deliveries; more is refused with 413 and starts nothing. */
const MAX_DELIVERIES_PER_REQUEST = 1_000;

/**
 * Deepest nesting of objects and arrays a body may have. Extracted variables are flat or a few levels
 * deep; n8n stores 10,000 levels but cannot open an execution of 100,000 ("corrupted execution data").
 */
export const MAX_NESTING_DEPTH = 1_000;

type ReadResult = { deliveries: IDataObject[] } | { problem: string; status: 400 | 413 | 415 };

/** The request n8n hands to webhook(): its body parsed, read raw, or (from version 1.1) left unread. */
interface WebhookRequest {
	rawBody?: Buffer;
	readRawBody?: () => Promise<void>;
}

type BodyKind = 'json' | 'text' | 'form' | 'other';

function bodyKind(contentType: string | undefined): BodyKind {
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	if (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json')))
		return 'json';
	// No content type at all, or text: the body may still hold JSON.
	if (type === '' || type === 'text/plain') return 'text';
	if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') return 'form';
	return 'other';
}

const UNSUPPORTED_TYPE =
	'Content-Type must be application/json, text/plain holding JSON, or form fields';

function parseJson(text: string): { value: unknown } | undefined {
	try {
		return { value: JSON.parse(withoutBom(text)) as unknown };
	} catch {
		return undefined;
	}
}

/** n8n 1.x's form parser keeps a byte-order mark in the first field's name. */
function formFields(fields: IDataObject): IDataObject {
	const keys = Object.keys(fields);
	if (keys.length === 0 || withoutBom(keys[0]) === keys[0]) return fields;
	const fixed: IDataObject = {};
	for (const key of keys) setOwn(fixed, withoutBom(key), fields[key]);
	return fixed;
}

const isEmptyObject = (value: unknown) => isPlainObject(value) && Object.keys(value).length === 0;

/**
 * What the request body holds, whichever way n8n's body parser left it. Every body but form fields
 * is JSON, decoded once: n8n's parse of an application/json body, or else the text (text/plain as
 * n8n decoded it, or the raw bytes as UTF-8). A JSON string is a string, never decoded again.
 */
function bodyOf(
	kind: BodyKind,
	parsedBody: unknown,
	rawBody: Buffer | undefined,
): { value: unknown } | undefined {
	const raw = rawBody !== undefined && rawBody.length > 0 ? rawBody.toString('utf8') : undefined;
	if (kind === 'form') {
		if (isPlainObject(parsedBody) && !isEmptyObject(parsedBody))
			return { value: formFields(parsedBody) };
		return raw === undefined
			? { value: {} }
			: { value: Object.fromEntries(new URLSearchParams(withoutBom(raw))) };
	}
	const parsedByN8n =
		kind === 'json' &&
		parsedBody !== undefined &&
		parsedBody !== null &&
		!isEmptyObject(parsedBody) &&
		!Buffer.isBuffer(parsedBody);
	if (parsedByN8n) return { value: parsedBody };
	const text = kind === 'text' && typeof parsedBody === 'string' ? parsedBody : raw;
	if (text === undefined || withoutBom(text) === '') return { value: undefined };
	return parseJson(text);
}

/** Whether objects and arrays nest deeper than `limit` in `value` (iterative: any depth is safe). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
	const pending: Array<[unknown, number]> = [[value, 1]];
	while (pending.length > 0) {
		const [current, depth] = pending.pop()!;
		if (current === null || typeof current !== 'object') continue;
		if (depth > limit) return true;
		for (const child of Object.values(current)) {
			if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
		}
	}
	return false;
}

function describeJson(value: unknown): string {
	if (value === null) return 'null';
	if (typeof value === 'string') return 'a string';
	if (typeof value === 'number') return 'a number';
	if (typeof value === 'boolean') return 'a boolean';
	return 'an array holding something other than objects';
}

/**
 * `{"data":{…}}` and `{"event":…,"data":{…}}` wrap one delivery: take it out, keeping the event. The
 * filter, duplicate detection and the Variables output read this; Raw Delivery keeps the body as sent.
 */
export function unwrapEnvelope(delivery: IDataObject): IDataObject {
	const keys = Object.keys(delivery);
	if (!isPlainObject(delivery.data) || !keys.every((key) => key === 'data' || key === 'event'))
		return delivery;
	const inner = delivery.data;
	return delivery.event === undefined || Object.hasOwn(inner, 'event')
		? inner
		: { event: delivery.event, ...inner };
}

/**
 * Reads the deliveries of the request n8n hands to webhook(). The content type is checked before a
 * byte is read, so a body of another type is refused (415) whatever its size; a body n8n left unread
 * is read here, and one over n8n's size limit (N8N_PAYLOAD_SIZE_MAX) is refused with 413.
 */
export async function readRequestDeliveries(
	contentType: string | undefined,
	request: WebhookRequest,
	parsedBody: () => unknown,
): Promise<ReadResult> {
	const kind = bodyKind(contentType);
	if (kind === 'other') return { problem: UNSUPPORTED_TYPE, status: 415 };
	// n8n's own form parser has consumed a multipart body: it cannot be read again.
	if (request.rawBody === undefined && !isMultipart(contentType) && request.readRawBody) {
		try {
			await request.readRawBody();
		} catch (error) {
			return unreadable(error);
		}
	}
	return readDeliveries(contentType, parsedBody(), request.rawBody);
}

function unreadable(error: unknown): { problem: string; status: 400 | 413 } {
	const { status, type } = (error ?? {}) as { status?: unknown; type?: unknown };
	if (status === 413 || type === 'entity.too.large') {
		return {
			problem: 'Body is larger than n8n accepts (N8N_PAYLOAD_SIZE_MAX). Nothing was started.',
			status: 413,
		};
	}
	return {
		problem:
			'Body could not be read whole (the connection closed, or its length or encoding was not as announced). Nothing was started.',
		status: 400,
	};
}

function isMultipart(contentType: string | undefined): boolean {
	return (contentType ?? '').trim().toLowerCase().startsWith('multipart/');
}

/**
 * The deliveries in a request, each as sent: one object, or an array of them (a batch, a shape the
 * spec does not show), sent as JSON, as text holding JSON, or as form fields. Anything else is a
 * problem answered with its status and starts nothing.
 */
export function readDeliveries(
	contentType: string | undefined,
	parsedBody: unknown,
	rawBody: Buffer | undefined,
): ReadResult {
	const kind = bodyKind(contentType);
	if (kind === 'other') return { problem: UNSUPPORTED_TYPE, status: 415 };
	const read = bodyOf(kind, parsedBody, rawBody);
	if (read === undefined) return { problem: 'Body is not valid JSON', status: 400 };
	const body = read.value;
	if (body === undefined) return { problem: 'Body is empty', status: 400 };
	const deliveries = Array.isArray(body) ? body : [body];
	if (!deliveries.every(isPlainObject)) {
		return {
			problem: `Body is ${describeJson(body)}, not a JSON object or an array of objects`,
			status: 400,
		};
	}
	if (deliveries.length === 0) return { problem: 'Body is empty', status: 400 };
	if (deliveries.length > MAX_DELIVERIES_PER_REQUEST) {
		return {
			problem: `One request carries at most ${MAX_DELIVERIES_PER_REQUEST} deliveries; this one has ${deliveries.length}. Nothing was started: send them in smaller batches.`,
			status: 413,
		};
	}
	if (nestsDeeperThan(body, MAX_NESTING_DEPTH)) {
		return {
			problem: `Body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep, more than n8n can store with an execution. Nothing was started.`,
			status: 400,
		};
	}
	if (deliveries.some((delivery) => Object.keys(delivery).length === 0))
		return { problem: 'Body is empty', status: 400 };
	return { deliveries };
}

/** Value at a dotted path ("conversation_id", "variables.call_id"), as a string, or undefined. */
export function fieldAt(delivery: IDataObject, path: string): string | undefined {
	let value: unknown = delivery;
	for (const part of path.split('.')) {
		if (!isPlainObject(value) || !Object.hasOwn(value, part)) return undefined;
		value = value[part];
	}
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

/** Comma- or newline-separated ids from a node option. */
export function idList(value: string | undefined): string[] {
	return (value ?? '')
		.split(/[\s,]+/)
		.map((id) => id.trim())
		.filter((id) => id !== '');
}

/**
 * The text of a resource locator value ({ __rl, mode, value }). A plain string, as workflows saved
 * before the agent filter became a resource locator hold it, is taken as it is.
 */
export function locatorText(value: unknown): string | undefined {
	const inner = isPlainObject(value) ? value.value : value;
	if (typeof inner === 'string') return inner;
	if (typeof inner === 'number') return String(inner);
	if (Array.isArray(inner))
		return inner.filter((id) => typeof id === 'string' || typeof id === 'number').join(',');
	return undefined;
}

type FilterResult = 'pass' | 'filtered' | 'unidentified';

/**
 * Whether a delivery passes the chatbot/agent filter (no ids given: everything passes). A delivery
 * that names neither an agent nor a chatbot cannot be matched: `unidentified`, and the caller decides.
 */
export function checkFilter(
	delivery: IDataObject,
	chatbotIds: string[],
	agentIds: string[],
): FilterResult {
	if (chatbotIds.length === 0 && agentIds.length === 0) return 'pass';
	const chatbotId = fieldAt(delivery, 'chatbot_id');
	const agentId = fieldAt(delivery, 'agent_id');
	if (chatbotId === undefined && agentId === undefined) return 'unidentified';
	return (chatbotId !== undefined && chatbotIds.includes(chatbotId)) ||
		(agentId !== undefined && agentIds.includes(agentId))
		? 'pass'
		: 'filtered';
}
