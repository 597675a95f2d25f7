import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { headerValue, withoutBom } from '../VoiceAi/transport/request';
import { isPlainObject, setOwn } from '../VoiceAi/transport/secrets';
import { DEFAULT_DEDUPE_FIELD, DEFAULT_DEDUPE_WINDOW_MINUTES } from './properties';

const MAX_DELIVERIES = 1_000; // per request (more: 413)
const MAX_DEPTH = 1_000; // of a body: n8n cannot store one 100,000 levels deep

type Problem = { problem: string; status: number };
type RawRequest = { rawBody?: Buffer; readRawBody?(): Promise<void> };

// What n8n left unread (from 1.1: application/*+json, no content type) is read within the limit.
export async function readRequestDeliveries(
	contentType: string | undefined,
	request: RawRequest,
	parsedBody: () => unknown,
): Promise<{ deliveries: IDataObject[] } | Problem> {
	const kind = bodyKind(contentType);
	if ('problem' in kind) return kind;
	const unread = await readWholeBody(request, kind.type);
	if (unread) return unread;
	const body = bodyOf(kind, request, parsedBody());
	if (body && 'problem' in body) return body;
	return deliveriesIn(body?.value);
}

function bodyKind(
	contentType: string | undefined,
): { type: string; json: boolean; form: boolean } | Problem {
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	const json = /^application\/(.*\+)?json$/.test(type);
	const form = type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data';
	if (!json && !form && type !== '' && type !== 'text/plain')
		return {
			problem: 'Content-Type must be application/json, text/plain holding JSON, or form fields',
			status: 415,
		};
	return { type, json, form };
}

async function readWholeBody(request: RawRequest, type: string): Promise<Problem | undefined> {
	// n8n's own form parser has consumed a multipart body: it cannot be read again.
	if (request.rawBody !== undefined || !request.readRawBody || type === 'multipart/form-data')
		return undefined;
	try {
		await request.readRawBody();
		return undefined;
	} catch (error) {
		const { status, type: reason } = (error ?? {}) as { status?: unknown; type?: unknown };
		const tooLarge = status === 413 || reason === 'entity.too.large';
		return {
			problem: tooLarge
				? 'Body is larger than n8n accepts (N8N_PAYLOAD_SIZE_MAX). Nothing was started.'
				: 'Body could not be read whole (the connection closed, or its length or encoding was not as announced). Nothing was started.',
			status: tooLarge ? 413 : 400,
		};
	}
}

/** The body as JSON or form fields; undefined for an empty one. */
function bodyOf(
	{ json, form }: { json: boolean; form: boolean },
	request: RawRequest,
	parsed: unknown,
): { value: unknown } | Problem | undefined {
	// An empty object or a Buffer is what n8n leaves when it did not parse.
	let body = parsed;
	if (Buffer.isBuffer(body) || (isPlainObject(body) && Object.keys(body).length === 0))
		body = undefined;
	if (form && body === undefined && request.rawBody !== undefined)
		return { value: formFields(withoutBom(String(request.rawBody))) };
	// n8n 1.x's form parser keeps a byte-order mark in the first field's name.
	if (form && isPlainObject(body))
		return {
			value: Object.fromEntries(
				Object.entries(body).map(([k, v], i) => [i ? k : withoutBom(k), v]),
			),
		};
	if (form || (json && body !== undefined)) return body === undefined ? undefined : { value: body };
	const text = withoutBom(typeof body === 'string' ? body : String(request.rawBody ?? ''));
	if (text === '') return undefined;
	return parseJson(text) ?? { problem: 'Body is not valid JSON', status: 400 };
}

function deliveriesIn(body: unknown): { deliveries: IDataObject[] } | Problem {
	const deliveries: unknown[] = body === undefined ? [] : Array.isArray(body) ? body : [body];
	if (!deliveries.every(isPlainObject)) {
		const what = Array.isArray(body)
			? 'an array holding something other than objects'
			: body === null
				? 'null'
				: `a ${typeof body}`;
		return { problem: `Body is ${what}, not a JSON object or an array of objects`, status: 400 };
	}
	if (deliveries.length > MAX_DELIVERIES)
		return {
			problem: `One request carries at most ${MAX_DELIVERIES} deliveries; this one has ${deliveries.length}. Nothing was started: send them in smaller batches.`,
			status: 413,
		};
	if (nestsDeeperThan(body, MAX_DEPTH))
		return {
			problem: `Body nests objects or arrays more than ${MAX_DEPTH} levels deep, more than n8n can store with an execution. Nothing was started.`,
			status: 400,
		};
	if (deliveries.length === 0 || deliveries.some((delivery) => Object.keys(delivery).length === 0))
		return { problem: 'Body is empty', status: 400 };
	return { deliveries: deliveries as IDataObject[] };
}

function formFields(text: string): IDataObject {
	const fields: IDataObject = {};
	for (const [key, value] of [...new URLSearchParams(text)].slice(0, 1000))
		setOwn(fields, key, Object.hasOwn(fields, key) ? [fields[key], value].flat() : value);
	return fields;
}

function parseJson(text: string): { value: unknown } | undefined {
	try {
		return { value: JSON.parse(text) as unknown };
	} catch {
		return undefined;
	}
}

/** Iterative: any depth is safe. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
	for (const pending: Array<[unknown, number]> = [[value, 1]]; pending.length > 0; ) {
		const [current, depth] = pending.pop()!;
		if (current === null || typeof current !== 'object') continue;
		if (depth > limit) return true;
		for (const child of Object.values(current)) pending.push([child, depth + 1]);
	}
	return false;
}

// Dropped deliveries are answered 2xx too, or the service would retry them.
export function startRuns(this: IWebhookFunctions, deliveries: IDataObject[]) {
	const headers = this.getHeaderData();
	const raw = this.getNodeParameter('output') === 'raw';
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const [chatbotIds, agentIds] = [options.chatbotIds, options.agentIds].map(idList);
	const dedupeField = ((options.dedupeField as string | undefined) ?? DEFAULT_DEDUPE_FIELD).trim();
	// Answering after the run, a repeat is the service retrying a failed or lost run: it must pass.
	const windowMs =
		this.getNodeParameter('respondWhen') === 'lastNode' || !dedupeField
			? 0
			: Number(options.dedupeWindowMinutes ?? DEFAULT_DEDUPE_WINDOW_MINUTES) * 60_000;
	const scope = `${this.getWorkflow().id}/${this.getNode().id}/${this.getMode()}`;
	const now = Date.now();
	const deliveryId = headerValue(headers['x-voiceai-delivery']);
	const context: IDataObject = {
		receivedAt: new Date(now).toISOString(),
		deliveryId: deliveryId ?? null,
		attempt: Number(headerValue(headers['x-voiceai-attempt'])) || null,
	};

	const filtering = chatbotIds.length + agentIds.length > 0;
	const counts = { duplicates: 0, filtered: 0, unidentified: 0 };
	const items = [];
	const recorded: Array<[string, number]> = [];
	for (const [index, sent] of deliveries.entries()) {
		const delivery = unwrapEnvelope(sent);
		const [chatbotId, agentId] = [fieldAt(delivery, 'chatbot_id'), fieldAt(delivery, 'agent_id')];
		const passes = chatbotIds.includes(chatbotId ?? '') || agentIds.includes(agentId ?? '');
		if (filtering && !passes && (chatbotId || agentId || options.withoutSourceId !== 'start')) {
			counts[chatbotId || agentId ? 'filtered' : 'unidentified']++;
			continue;
		}
		const value = fieldAt(delivery, dedupeField);
		const batchIndex = deliveries.length > 1 ? `#${index}` : '';
		const id =
			value === undefined ? deliveryId && `delivery:${deliveryId}${batchIndex}` : `field:${value}`;
		const expiresAt = id && windowMs > 0 ? remember(scope, id, windowMs, now) : 0;
		if (expiresAt === undefined) {
			counts.duplicates++;
			continue;
		}
		if (expiresAt) recorded.push([id!, expiresAt]);
		items.push({ json: raw ? sent : variablesItem(delivery, context) });
	}
	forgetUnlessAnswered(this.getResponseObject(), scope, recorded);

	if (items.length === 0) return { webhookResponse: { received: true, started: false, ...counts } };
	return {
		workflowData: [items],
		webhookResponse: { received: true, started: true, items: items.length, ...counts },
	};
}

function unwrapEnvelope(delivery: IDataObject): IDataObject {
	const { data, event, ...others } = delivery;
	if (!isPlainObject(data) || Object.keys(others).length > 0) return delivery;
	return event === undefined || Object.hasOwn(data, 'event') ? data : { event, ...data };
}

function fieldAt(delivery: IDataObject, path: string): string | undefined {
	let value: unknown = delivery;
	for (const part of path.split('.')) {
		if (!isPlainObject(value) || !Object.hasOwn(value, part)) return undefined;
		value = value[part];
	}
	const scalar = ['number', 'boolean', 'string'].includes(typeof value);
	return scalar && value !== '' ? String(value) : undefined;
}

/** Ids from an option: comma- or newline-separated text (older workflows), or a locator's value. */
function idList(option: unknown): string[] {
	const value = isPlainObject(option) ? option.value : option;
	return (Array.isArray(value) ? value : [value])
		.filter((id) => typeof id === 'string' || typeof id === 'number')
		.flatMap((id) => String(id).split(/[\s,]+/))
		.filter((id) => id !== '');
}

// Ids seen per trigger in memory, not static data: n8n never saves what webhook() writes there.
const seenByTrigger = new Map<string, Map<string, number>>();
const MAX_REMEMBERED_IDS = 10_000;
const MAX_TRIGGERS = 1_000;

// The id's expiry, or undefined for a duplicate; synchronous: two copies cannot both pass.
export function remember(scope: string, id: string, windowMs: number, now: number) {
	if (!seenByTrigger.has(scope) && seenByTrigger.size >= MAX_TRIGGERS)
		seenByTrigger.delete(seenByTrigger.keys().next().value as string);
	const seen = seenByTrigger.get(scope) ?? new Map<string, number>();
	seenByTrigger.set(scope, seen);
	// Entries are kept in insertion order with the same window, so expired ones sit at the front.
	for (const [seenId, expiresAt] of seen) {
		if (expiresAt > now) break;
		seen.delete(seenId);
	}
	if ((seen.get(id) ?? 0) > now) return undefined;
	seen.delete(id);
	seen.set(id, now + windowMs);
	if (seen.size > MAX_REMEMBERED_IDS) seen.delete(seen.keys().next().value as string);
	return now + windowMs;
}

// An error answer (no run) forgets the ids for the next copy; 'prefinish' comes socketless too.
export function forgetUnlessAnswered(
	response: { once(event: 'prefinish', listener: () => void): unknown; statusCode: number },
	scope: string,
	recorded: Array<[id: string, expiresAt: number]>,
): void {
	if (recorded.length === 0) return;
	response.once('prefinish', () => {
		if (response.statusCode >= 200 && response.statusCode < 300) return;
		const seen = seenByTrigger.get(scope);
		for (const [id, expiresAt] of recorded) if (seen?.get(id) === expiresAt) seen.delete(id);
	});
}

const NAMED = ['event', 'conversation_id', 'source', 'agent_id', 'chatbot_id', 'completed_at'];

// Variables and Metadata (docs/trigger.md): without `variables`, fields not NAMED are variables.
function variablesItem(delivery: IDataObject, context: IDataObject): IDataObject {
	const given = Object.hasOwn(delivery, 'variables') ? delivery.variables : undefined;
	let variables: IDataObject = {};
	const rest: IDataObject = {};
	for (const [key, value] of Object.entries(delivery))
		if (key !== 'variables')
			setOwn(given === undefined && !NAMED.includes(key) ? variables : rest, key, value);
	const parsed = typeof given === 'string' ? parseJson(given)?.value : given;
	if (isPlainObject(parsed) && (parsed === given || !nestsDeeperThan(parsed, MAX_DEPTH)))
		variables = parsed;
	else if (given !== undefined) variables = { variables: given };
	const metadata: IDataObject = {};
	for (const field of NAMED)
		metadata[field.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())] =
			fieldAt(delivery, field) ?? null;
	if (metadata.source === 'account_webhook') metadata.source = 'account webhook';
	const clash = Object.hasOwn(variables, '_voiceAi') || Object.hasOwn(variables, 'conversation');
	return {
		...variables,
		_voiceAi: { ...metadata, ...context },
		conversation: clash ? { ...rest, variables } : rest,
	};
}
