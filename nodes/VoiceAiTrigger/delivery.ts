// One delivery, in the order webhook() (VoiceAiTrigger.node.ts) takes it: the token, the body, then
// for each delivery the body carries the filter, the duplicate check and its item.
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	apiKeyOf,
	hashToken,
	productionToken,
	type Registration,
	TOKEN_PARAMETER,
	tokenMatches,
} from '../VoiceAi/accountOwnership/registration';
import { headerValue, isPlainObject, setOwn, withoutBom } from '../VoiceAi/transport';
import {
	DEFAULT_DEDUPE_FIELD,
	DEFAULT_DEDUPE_WINDOW_MINUTES,
	DEFAULT_OUTPUT,
	ON_RECEIVED,
} from './properties';

// 1. The token.

/**
 * Production accepts the token it registered (static data) and the one it would register now:
 * after an API key rotation, a test listen restores the URL with the new key's token.
 */
export async function hasValidToken(
	this: IWebhookFunctions,
	record: Registration | undefined,
): Promise<boolean> {
	const given = (this.getQueryData() as IDataObject)[TOKEN_PARAMETER];
	if (typeof given !== 'string' || given === '') return false;
	if (record !== undefined && tokenMatches(given, record.tokenHash)) return true;
	if (this.getMode() === 'manual') return false;
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	return tokenMatches(given, hashToken(productionToken(await apiKeyOf.call(this), webhookUrl)));
}

// 2. The body.

/** One request carries at most this many deliveries; more is refused with 413 and starts nothing. */
const MAX_DELIVERIES_PER_REQUEST = 1_000;

/**
 * Deepest nesting of objects and arrays a body may have. Extracted variables are flat or a few levels
 * deep; n8n stores 10,000 levels but cannot open an execution of 100,000 ("corrupted execution data").
 */
const MAX_NESTING_DEPTH = 1_000;

type ReadResult = { deliveries: IDataObject[] } | { problem: string; status: 400 | 413 | 415 };

/** The request n8n hands to webhook(): its body read (n8n's rawBody) or, from version 1.1, maybe not. */
interface WebhookRequest {
	rawBody?: Buffer;
	readRawBody?: () => Promise<void>;
}

type BodyKind = 'json' | 'text' | 'form';

/** What the content type says the body holds; undefined for a type the trigger does not take. */
function bodyKind(mediaType: string): BodyKind | undefined {
	if (mediaType === 'application/json') return 'json';
	if (mediaType.startsWith('application/') && mediaType.endsWith('+json')) return 'json';
	// No content type at all, or text: the body may still hold JSON.
	if (mediaType === '' || mediaType === 'text/plain') return 'text';
	if (mediaType === 'application/x-www-form-urlencoded' || mediaType === 'multipart/form-data')
		return 'form';
	return undefined;
}

/**
 * Reads the deliveries of the request n8n hands to webhook(). The content type is checked before a
 * byte is read, so a body of another type is refused (415) whatever its size. n8n has parsed JSON
 * (application/json), text and form bodies (`parsedBody`); from version 1.1 it leaves an
 * application/*+json body or one without a content type unread, and it is read here, within n8n's
 * size limit (N8N_PAYLOAD_SIZE_MAX, else 413).
 */
export async function readRequestDeliveries(
	contentType: string | undefined,
	request: WebhookRequest,
	parsedBody: () => unknown,
): Promise<ReadResult> {
	const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
	const kind = bodyKind(mediaType);
	if (kind === undefined) {
		return {
			problem: 'Content-Type must be application/json, text/plain holding JSON, or form fields',
			status: 415,
		};
	}
	// n8n's own form parser has consumed a multipart body: it cannot be read again.
	if (request.rawBody === undefined && mediaType !== 'multipart/form-data' && request.readRawBody) {
		try {
			await request.readRawBody();
		} catch (error) {
			return unreadable(error);
		}
	}
	const body = bodyOf(kind, parsedBody(), request.rawBody?.toString('utf8') ?? '');
	if (body === undefined) return { problem: 'Body is not valid JSON', status: 400 };
	return deliveriesIn(body.value);
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

/**
 * What the body holds: n8n's parse where it gave one (it gives nothing, or an empty object, for a body
 * it did not parse), else the text (text/plain as n8n decoded it, or the raw bytes as UTF-8). Every
 * body but form fields is JSON, decoded once: a JSON string is a string, never decoded again.
 */
function bodyOf(kind: BodyKind, parsed: unknown, raw: string): { value: unknown } | undefined {
	const given =
		parsed === undefined || Buffer.isBuffer(parsed) || isEmptyObject(parsed) ? undefined : parsed;
	if (kind === 'form') {
		if (isPlainObject(given)) return { value: formFields(given) };
		return { value: Object.fromEntries(new URLSearchParams(withoutBom(raw))) };
	}
	if (kind === 'json' && given !== undefined) return { value: given };
	const text = withoutBom(typeof given === 'string' ? given : raw);
	return text === '' ? { value: undefined } : parseJson(text);
}

const isEmptyObject = (value: unknown) => isPlainObject(value) && Object.keys(value).length === 0;

/** n8n 1.x's form parser keeps a byte-order mark in the first field's name. */
function formFields(fields: IDataObject): IDataObject {
	const keys = Object.keys(fields);
	if (keys.length === 0 || withoutBom(keys[0]) === keys[0]) return fields;
	const fixed: IDataObject = {};
	for (const key of keys) setOwn(fixed, withoutBom(key), fields[key]);
	return fixed;
}

function parseJson(text: string): { value: unknown } | undefined {
	try {
		return { value: JSON.parse(text) as unknown };
	} catch {
		return undefined;
	}
}

/**
 * The deliveries in a body, each as sent: one object, or an array of them (a batch, a shape the spec
 * does not show). Anything else is a problem answered with its status and starts nothing.
 */
function deliveriesIn(body: unknown): ReadResult {
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

function describeJson(value: unknown): string {
	if (value === null) return 'null';
	if (typeof value === 'string') return 'a string';
	if (typeof value === 'number') return 'a number';
	if (typeof value === 'boolean') return 'a boolean';
	return 'an array holding something other than objects';
}

/** Whether objects and arrays nest deeper than `limit` in `value` (iterative: any depth is safe). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
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

// 3. Each delivery: the filter, the duplicate check, its item.

/**
 * The verified deliveries of one request (each as sent), filtered by source and checked for
 * duplicates, as the items of one run (or none); every delivery is answered 2xx, counted by what
 * became of it.
 */
export function startRuns(
	this: IWebhookFunctions,
	deliveries: IDataObject[],
): IWebhookResponseData {
	const headers = this.getHeaderData();
	const output = this.getNodeParameter('output', DEFAULT_OUTPUT) as 'variables' | 'raw';
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const chatbotIds = idList(options.chatbotIds as string | undefined);
	const agentIds = idList(locatorText(options.agentIds));
	const startUnidentified = options.withoutSourceId === 'start';
	const dedupeField = ((options.dedupeField as string | undefined) ?? DEFAULT_DEDUPE_FIELD).trim();
	// When the answer waits for the run, a repeated delivery is the service retrying a run that failed
	// or was lost: remembering the first copy would drop the retry.
	const windowMs =
		this.getNodeParameter('respondWhen', ON_RECEIVED) === 'lastNode'
			? 0
			: Number(options.dedupeWindowMinutes ?? DEFAULT_DEDUPE_WINDOW_MINUTES) * 60_000;
	const scope = `${this.getWorkflow().id}/${this.getNode().id}/${this.getMode()}`;
	const now = Date.now();
	const context = {
		receivedAt: new Date(now).toISOString(),
		deliveryId: headerValue(headers['x-voiceai-delivery']),
		attempt: Number(headerValue(headers['x-voiceai-attempt'])) || undefined,
	};
	const batch = deliveries.length > 1;

	const counts = { duplicates: 0, filtered: 0, unidentified: 0 };
	const items = [];
	const recorded: Array<[string, number]> = [];
	for (const [index, sent] of deliveries.entries()) {
		const delivery = unwrapEnvelope(sent);
		const filter = checkFilter(delivery, chatbotIds, agentIds);
		if (filter === 'filtered' || (filter === 'unidentified' && !startUnidentified)) {
			counts[filter]++;
			continue;
		}
		const id = dedupeIdOf(delivery, dedupeField, context.deliveryId, batch ? index : undefined);
		if (id !== undefined && windowMs > 0) {
			const expiresAt = remember(scope, id, windowMs, now);
			if (expiresAt === undefined) {
				counts.duplicates++;
				continue;
			}
			recorded.push([id, expiresAt]);
		}
		items.push(output === 'raw' ? { json: sent } : variablesItem(delivery, context));
	}
	forgetUnlessAnswered(this.getResponseObject(), scope, recorded);

	// Dropped deliveries are still answered 2xx, or the service would retry them.
	if (items.length === 0) {
		return { webhookResponse: { received: true, started: false, ...counts } };
	}
	return {
		workflowData: [items],
		webhookResponse: { received: true, started: true, items: items.length, ...counts },
	};
}

/**
 * `{"data":{…}}` and `{"event":…,"data":{…}}` wrap one delivery: take it out, keeping the event. The
 * filter, duplicate detection and the Variables output read this; Raw Delivery keeps the body as sent.
 */
function unwrapEnvelope(delivery: IDataObject): IDataObject {
	const keys = Object.keys(delivery);
	if (!isPlainObject(delivery.data) || !keys.every((key) => key === 'data' || key === 'event'))
		return delivery;
	const inner = delivery.data;
	return delivery.event === undefined || Object.hasOwn(inner, 'event')
		? inner
		: { event: delivery.event, ...inner };
}

/** Value at a dotted path ("conversation_id", "variables.call_id"), as a string, or undefined. */
function fieldAt(delivery: IDataObject, path: string): string | undefined {
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
function idList(value: string | undefined): string[] {
	return (value ?? '')
		.split(/[\s,]+/)
		.map((id) => id.trim())
		.filter((id) => id !== '');
}

/**
 * The text of a resource locator value ({ __rl, mode, value }). A plain string, as workflows saved
 * before the agent filter became a resource locator hold it, is taken as it is.
 */
function locatorText(value: unknown): string | undefined {
	const inner = isPlainObject(value) ? value.value : value;
	if (typeof inner === 'string') return inner;
	if (typeof inner === 'number') return String(inner);
	if (Array.isArray(inner))
		return inner.filter((id) => typeof id === 'string' || typeof id === 'number').join(',');
	return undefined;
}

/**
 * Whether a delivery passes the chatbot/agent filter (no ids given: everything passes). A delivery
 * that names neither an agent nor a chatbot cannot be matched: `unidentified`, and the caller decides.
 */
function checkFilter(
	delivery: IDataObject,
	chatbotIds: string[],
	agentIds: string[],
): 'pass' | 'filtered' | 'unidentified' {
	if (chatbotIds.length === 0 && agentIds.length === 0) return 'pass';
	const chatbotId = fieldAt(delivery, 'chatbot_id');
	const agentId = fieldAt(delivery, 'agent_id');
	if (chatbotId === undefined && agentId === undefined) return 'unidentified';
	return (chatbotId !== undefined && chatbotIds.includes(chatbotId)) ||
		(agentId !== undefined && agentIds.includes(agentId))
		? 'pass'
		: 'filtered';
}

/**
 * What identifies a delivery for duplicate detection: the configured field, or else the service's
 * delivery id header (with the position in a batch, since one request then carries several).
 */
function dedupeIdOf(
	delivery: IDataObject,
	field: string,
	deliveryId: string | undefined,
	index: number | undefined,
): string | undefined {
	const value = field === '' ? undefined : fieldAt(delivery, field);
	if (value !== undefined) return `field:${value}`;
	if (field === '' || deliveryId === undefined || deliveryId === '') return undefined;
	return index === undefined ? `delivery:${deliveryId}` : `delivery:${deliveryId}#${index}`;
}

// 4. Duplicates: the ids seen recently.

/**
 * Conversation ids seen recently, per trigger (workflow, node and mode), kept in this n8n process's
 * memory. Static data would not do: n8n reloads a workflow's static data from the database before
 * it runs a webhook execution and never saves what the webhook step wrote to it.
 */
const seenByTrigger = new Map<string, Map<string, number>>();

/** Upper bound of remembered ids per trigger; the oldest are forgotten first. */
const MAX_REMEMBERED_IDS = 10_000;
const MAX_TRIGGERS = 1_000;

/**
 * Records `id` for `scope` for `windowMs` and returns its expiry, or undefined when it was already seen
 * within its window (a duplicate). Check and record happen in one synchronous step, so two concurrent
 * copies cannot both pass.
 */
export function remember(
	scope: string,
	id: string,
	windowMs: number,
	now: number,
): number | undefined {
	let seen = seenByTrigger.get(scope);
	if (seen === undefined) {
		if (seenByTrigger.size >= MAX_TRIGGERS) {
			seenByTrigger.delete(seenByTrigger.keys().next().value as string);
		}
		seen = new Map();
		seenByTrigger.set(scope, seen);
	}
	// Entries are kept in insertion order with the same window, so expired ones sit at the front.
	for (const [seenId, expiresAt] of seen) {
		if (expiresAt > now) break;
		seen.delete(seenId);
	}
	const known = seen.get(id);
	if (known !== undefined && known > now) return undefined;
	seen.delete(id);
	const expiresAt = now + windowMs;
	seen.set(id, expiresAt);
	while (seen.size > MAX_REMEMBERED_IDS) {
		seen.delete(seen.keys().next().value as string);
	}
	return expiresAt;
}

/**
 * Forgets the ids recorded for one delivery when n8n answers it with an error: n8n did not start the
 * run (it failed to store or queue the execution), so the service's next copy must start it. Any
 * other end keeps them, also a caller that went away before the answer (its timeout, a proxy): n8n
 * may have started the run by then, and the retry must not start a second one.
 *
 * The answer is judged when n8n ends it ('prefinish', which Node emits on end() even when the
 * socket is already gone; 'close' may come first and cannot tell). No answer at all keeps the ids.
 */
export function forgetUnlessAnswered(
	response: {
		once(event: 'prefinish', listener: () => void): unknown;
		statusCode: number;
	},
	scope: string,
	recorded: Array<[id: string, expiresAt: number]>,
): void {
	if (recorded.length === 0) return;
	response.once('prefinish', () => {
		if (response.statusCode >= 200 && response.statusCode < 300) return;
		const seen = seenByTrigger.get(scope);
		for (const [id, expiresAt] of recorded) {
			if (seen?.get(id) === expiresAt) seen.delete(id);
		}
	});
}

// 5. The Variables and Metadata item.

/** The fields of a delivery the contract names; anything else is a variable or an unknown extra. */
const ENVELOPE_FIELDS = [
	'event',
	'conversation_id',
	'source',
	'agent_id',
	'chatbot_id',
	'completed_at',
	'variables',
];

/** Keys of the metadata object and of the object holding every field that is not a variable. */
const METADATA_KEY = '_voiceAi';
const CONVERSATION_KEY = 'conversation';

const SOURCE_LABELS: Record<string, string> = {
	account_webhook: 'account webhook',
	chatbot: 'chatbot',
};

interface DeliveryContext {
	receivedAt: string;
	deliveryId?: string;
	attempt?: number;
}

/**
 * The Variables and Metadata item of one delivery (out of its envelope): the variables as fields,
 * `_voiceAi` (normalised metadata) and `conversation` (every other field exactly as delivered).
 * A variable named like one of the two keys is kept whole under `conversation.variables`.
 */
function variablesItem(delivery: IDataObject, context: DeliveryContext): INodeExecutionData {
	const { variables, rest } = splitDelivery(delivery);
	const clash =
		Object.hasOwn(variables, METADATA_KEY) || Object.hasOwn(variables, CONVERSATION_KEY);
	return {
		json: {
			...variables,
			[METADATA_KEY]: metadataOf(delivery, context),
			[CONVERSATION_KEY]: clash ? { ...rest, variables } : rest,
		},
	};
}

/**
 * The extracted variables of a delivery and the fields left over. Shapes the spec does not show are
 * taken as they come: `variables` as a JSON string holding an object is parsed (unless it nests
 * deeper than a body may); no `variables` key means the body itself (minus the envelope fields) holds
 * them; any other `variables` value is kept under `variables`. Fields are set as own properties, so a
 * field named `__proto__` stays a field.
 */
function splitDelivery(delivery: IDataObject): { variables: IDataObject; rest: IDataObject } {
	const variables = Object.hasOwn(delivery, 'variables') ? delivery.variables : undefined;
	const rest: IDataObject = {};
	if (variables === undefined) {
		const taken: IDataObject = {};
		for (const [key, value] of Object.entries(delivery)) {
			setOwn(ENVELOPE_FIELDS.includes(key) ? rest : taken, key, value);
		}
		return { variables: taken, rest };
	}
	for (const [key, value] of Object.entries(delivery)) {
		if (key !== 'variables') setOwn(rest, key, value);
	}
	if (isPlainObject(variables)) return { variables, rest };
	if (typeof variables === 'string') {
		const parsed = parseJson(variables)?.value;
		if (isPlainObject(parsed) && !nestsDeeperThan(parsed, MAX_NESTING_DEPTH))
			return { variables: parsed, rest };
	}
	return { variables: { variables }, rest };
}

function metadataOf(delivery: IDataObject, context: DeliveryContext): IDataObject {
	const source = fieldAt(delivery, 'source');
	return {
		event: fieldAt(delivery, 'event') ?? null,
		conversationId: fieldAt(delivery, 'conversation_id') ?? null,
		source: source === undefined ? null : (SOURCE_LABELS[source] ?? source),
		agentId: fieldAt(delivery, 'agent_id') ?? null,
		chatbotId: fieldAt(delivery, 'chatbot_id') ?? null,
		completedAt: fieldAt(delivery, 'completed_at') ?? null,
		receivedAt: context.receivedAt,
		deliveryId: context.deliveryId ?? null,
		attempt: context.attempt ?? null,
	};
}
