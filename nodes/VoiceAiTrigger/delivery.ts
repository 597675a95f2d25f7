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

export type ReadResult = { deliveries: IDataObject[] } | { problem: string };

export function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value);
}

function isJsonContentType(contentType: string | undefined): boolean {
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * The deliveries in a request: one JSON object, or an array of them (a batch, a shape the spec
 * does not show). Everything else is a problem answered with 400 and starts nothing.
 */
export function readDeliveries(
	contentType: string | undefined,
	parsedBody: unknown,
	rawBody: Buffer | undefined,
): ReadResult {
	if (!isJsonContentType(contentType)) {
		return { problem: 'Content-Type must be application/json' };
	}
	let body = parsedBody;
	const bodyWasParsed = isPlainObject(body) ? Object.keys(body).length > 0 : Array.isArray(body);
	if (!bodyWasParsed && rawBody !== undefined && rawBody.length > 0) {
		// The host did not parse it (e.g. an application/*+json type): parse it here.
		try {
			body = JSON.parse(rawBody.toString('utf8'));
		} catch {
			return { problem: 'Body is not valid JSON' };
		}
	}
	if (typeof body === 'string') return { problem: 'Body is not a JSON object' };
	const deliveries = Array.isArray(body) ? body : [body];
	if (deliveries.length === 0) return { problem: 'Body is empty' };
	for (const delivery of deliveries) {
		if (!isPlainObject(delivery)) return { problem: 'Body is not a JSON object' };
		if (Object.keys(delivery).length === 0) return { problem: 'Body is empty' };
	}
	return { deliveries: deliveries as IDataObject[] };
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
	if (Array.isArray(inner)) return inner.filter((id) => typeof id === 'string' || typeof id === 'number').join(',');
	return undefined;
}

/** Whether a delivery passes the chatbot/agent filter (no ids given: everything passes). */
export function passesFilter(delivery: IDataObject, chatbotIds: string[], agentIds: string[]): boolean {
	if (chatbotIds.length === 0 && agentIds.length === 0) return true;
	const chatbotId = fieldAt(delivery, 'chatbot_id');
	const agentId = fieldAt(delivery, 'agent_id');
	return (
		(chatbotId !== undefined && chatbotIds.includes(chatbotId)) ||
		(agentId !== undefined && agentIds.includes(agentId))
	);
}
