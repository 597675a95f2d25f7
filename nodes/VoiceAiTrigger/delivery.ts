import type { IDataObject } from 'n8n-workflow';

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

type ReadResult = { deliveries: IDataObject[] } | { problem: string; status: 400 | 413 | 415 };

export function isPlainObject(value: unknown): value is IDataObject {
	return (
		value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)
	);
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

function parseJson(text: string): { value: unknown } | undefined {
	try {
		return { value: JSON.parse(text) as unknown };
	} catch {
		return undefined;
	}
}

/** What the request body holds, whichever way n8n's body parser left it. */
function bodyOf(
	kind: BodyKind,
	parsedBody: unknown,
	rawBody: Buffer | undefined,
): { value: unknown } | undefined {
	const parsed = isPlainObject(parsedBody)
		? Object.keys(parsedBody).length > 0
		: Array.isArray(parsedBody);
	const raw = rawBody !== undefined && rawBody.length > 0 ? rawBody.toString('utf8') : undefined;
	if (kind === 'form') {
		if (parsed) return { value: parsedBody };
		return raw === undefined
			? { value: {} }
			: { value: Object.fromEntries(new URLSearchParams(raw)) };
	}
	if (parsed) return { value: parsedBody };
	if (typeof parsedBody === 'string' && parsedBody !== '') return parseJson(parsedBody);
	return raw === undefined ? { value: undefined } : parseJson(raw);
}

/** `{"data":{…}}` and `{"event":…,"data":{…}}` wrap one delivery: take it out, keeping the event. */
function unwrapEnvelope(delivery: IDataObject): IDataObject {
	const keys = Object.keys(delivery);
	if (!isPlainObject(delivery.data) || !keys.every((key) => key === 'data' || key === 'event'))
		return delivery;
	const inner = delivery.data;
	return delivery.event === undefined || inner.event !== undefined
		? inner
		: { event: delivery.event, ...inner };
}

/**
 * The deliveries in a request: one object, or an array of them (a batch, a shape the spec does not
 * show), sent as JSON, as text holding JSON, or as form fields. Anything else is a problem answered
 * with its status and starts nothing.
 */
export function readDeliveries(
	contentType: string | undefined,
	parsedBody: unknown,
	rawBody: Buffer | undefined,
): ReadResult {
	const kind = bodyKind(contentType);
	if (kind === 'other') {
		return {
			problem: 'Content-Type must be application/json, text/plain holding JSON, or form fields',
			status: 415,
		};
	}
	const read = bodyOf(kind, parsedBody, rawBody);
	if (read === undefined) return { problem: 'Body is not valid JSON', status: 400 };
	const body = read.value;
	if (body === undefined) return { problem: 'Body is empty', status: 400 };
	if (!isPlainObject(body) && !Array.isArray(body))
		return { problem: 'Body is not a JSON object', status: 400 };
	const deliveries = Array.isArray(body) ? body : [body];
	if (deliveries.length === 0) return { problem: 'Body is empty', status: 400 };
	if (deliveries.length > MAX_DELIVERIES_PER_REQUEST) {
		return {
			problem: `One request carries at most ${MAX_DELIVERIES_PER_REQUEST} deliveries; this one has ${deliveries.length}. Nothing was started: send them in smaller batches.`,
			status: 413,
		};
	}
	const unwrapped: IDataObject[] = [];
	for (const delivery of deliveries) {
		if (!isPlainObject(delivery)) return { problem: 'Body is not a JSON object', status: 400 };
		if (Object.keys(delivery).length === 0) return { problem: 'Body is empty', status: 400 };
		unwrapped.push(unwrapEnvelope(delivery));
	}
	return { deliveries: unwrapped };
}

/** Value at a dotted path ("conversation_id", "variables.call_id"), as a string, or undefined. */
export function fieldAt(delivery: IDataObject, path: string): string | undefined {
	let value: unknown = delivery;
	for (const part of path.split('.')) {
		if (!isPlainObject(value)) return undefined;
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
