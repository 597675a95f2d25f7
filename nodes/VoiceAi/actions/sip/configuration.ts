import type { IDataObject } from 'n8n-workflow';

import { setOwn } from '../../transport';
import type { ApiCall } from '../types';
import { request, send } from '../types';
import { PHONE_NUMBER } from './fields';

// What SIP Update and SIP Compare share: reading the GET /sip answer (whose body shape the spec does not
// show), building the body PATCH /sip/sip2 gets, listing differences, and hiding SIP passwords.

export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type DirectionType = (typeof DIRECTIONS)[number];

/** Sent for a direction that does not exist yet when its field is left empty (explained in the editor). */
const NEW_DIRECTION_DEFAULTS = { port: 5060, transport: 'udp', secure_media: true } as const;

/** What an output item shows instead of a SIP password, unless the node is told to show passwords. */
const HIDDEN_PASSWORD = '(set, hidden)';

/** One direction as the user asked for it; an absent field keeps what the current configuration has. */
export interface DirectionChange {
	type: DirectionType;
	sip_endpoint: string;
	port?: number;
	transport?: string;
	secure_media?: boolean;
	sip_username?: string;
	sip_password?: string;
}

export interface SipIntent {
	phone_number: string;
	trunkName?: string;
	uuid_config_id?: string;
	changes: DirectionChange[];
	/** keep: directions not listed are sent as the current configuration has them; detach: left out. */
	unlisted: 'keep' | 'detach';
	showPasswords: boolean;
}

type CurrentSip =
	| { readable: true; config: IDataObject; directions: IDataObject[] }
	| { readable: false; reason: string };

const isObject = (value: unknown): value is IDataObject =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The current configuration from a GET /sip/{phone} answer. Read only where the shape leaves no doubt:
 * an object with a `directions` list, or such an object under `data`. Every direction must be an object
 * whose type is inbound or outbound, each type at most once. Anything else is unreadable.
 */
export function readCurrentSip(answer: unknown): CurrentSip {
	let config: IDataObject | undefined;
	if (isObject(answer) && Array.isArray(answer.directions)) {
		if (isObject(answer.data) && 'directions' in answer.data)
			return {
				readable: false,
				reason: 'the answer holds two directions lists (top level and under data)',
			};
		config = answer;
	} else if (isObject(answer) && isObject(answer.data) && Array.isArray(answer.data.directions)) {
		config = answer.data;
	}
	if (!config)
		return {
			readable: false,
			reason: `the answer is ${describeShape(answer)}, not an object with a directions list`,
		};
	const directions = config.directions as unknown[];
	const seen = new Set<string>();
	for (const [index, direction] of directions.entries()) {
		if (!isObject(direction) || !(DIRECTIONS as readonly unknown[]).includes(direction.type)) {
			return {
				readable: false,
				reason: `direction ${index} is not an object whose type is inbound or outbound`,
			};
		}
		if (seen.has(direction.type as string))
			return { readable: false, reason: `the ${String(direction.type)} direction is listed twice` };
		if (direction.options !== undefined && !isObject(direction.options)) {
			return {
				readable: false,
				reason: `the options of the ${String(direction.type)} direction are not an object`,
			};
		}
		seen.add(direction.type as string);
	}
	return { readable: true, config, directions: directions as IDataObject[] };
}

function describeShape(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return 'text';
	if (value === null || value === undefined) return 'empty';
	if (!isObject(value)) return `a ${typeof value}`;
	const keys = Object.keys(value);
	return keys.length
		? `an object with ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}`
		: 'an empty object';
}

/** Does building the body need the current configuration? Then it is read first, and an unreadable one stops the write. */
export function needsCurrent(intent: SipIntent): boolean {
	if (intent.unlisted === 'keep' && intent.changes.length < DIRECTIONS.length) return true;
	return intent.changes.some((change) => !isComplete(change));
}

function isComplete(change: DirectionChange): boolean {
	return ['port', 'transport', 'secure_media', 'sip_username', 'sip_password'].every(
		(field) => change[field as keyof DirectionChange] !== undefined,
	);
}

/**
 * The listed direction on top of what the current configuration has: every field GET returned stays
 * (port, transport, secure media, user name, password, fields the spec does not list), the user's fields
 * replace theirs. A new direction gets NEW_DIRECTION_DEFAULTS for the fields left empty.
 */
function mergeDirection(existing: IDataObject | undefined, change: DirectionChange): IDataObject {
	const options: IDataObject =
		existing && isObject(existing.options) ? { ...existing.options } : {};
	if (!existing) Object.assign(options, NEW_DIRECTION_DEFAULTS);
	for (const field of [
		'port',
		'transport',
		'secure_media',
		'sip_username',
		'sip_password',
	] as const) {
		if (change[field] !== undefined) options[field] = change[field];
	}
	return { ...(existing ?? {}), type: change.type, sip_endpoint: change.sip_endpoint, options };
}

/** The PATCH /sip/sip2 body. `current` must be readable whenever needsCurrent(intent) is true. */
export function buildBody(intent: SipIntent, current?: IDataObject[]): IDataObject {
	const body: IDataObject = { phone_number: intent.phone_number };
	if (intent.trunkName) body.trunkName = intent.trunkName;
	const directions: IDataObject[] = [];
	for (const type of DIRECTIONS) {
		const existing = current?.find((direction) => direction.type === type);
		const change = intent.changes.find((candidate) => candidate.type === type);
		if (change) directions.push(mergeDirection(existing, change));
		else if (intent.unlisted === 'keep' && existing) directions.push(structuredClone(existing));
	}
	if (intent.changes.length > 0 || intent.unlisted === 'keep') body.directions = directions;
	if (intent.uuid_config_id) body.uuid_config_id = intent.uuid_config_id;
	return body;
}

interface Difference {
	field: string;
	direction?: DirectionType;
	current: unknown;
	intended: unknown;
}

function same(a: unknown, b: unknown): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** What the body would change in the current configuration; directions absent from the body stay as they are. */
export function differences(
	current: CurrentSip & { readable: true },
	body: IDataObject,
): Difference[] {
	const found: Difference[] = [];
	if (body.trunkName !== undefined && body.trunkName !== current.config.trunkName) {
		found.push({
			field: 'trunkName',
			current: current.config.trunkName ?? null,
			intended: body.trunkName,
		});
	}
	if (!Array.isArray(body.directions)) return found;
	const wanted = body.directions as IDataObject[];
	for (const type of DIRECTIONS) {
		const now = current.directions.find((direction) => direction.type === type);
		const next = wanted.find((direction) => direction.type === type);
		if (!now && !next) continue;
		if (!now || !next) {
			found.push({
				field: 'direction',
				direction: type,
				current: now ? 'attached' : 'not attached',
				intended: next ? 'attached' : 'detached',
			});
			continue;
		}
		const keys = new Set(
			[...Object.keys(now), ...Object.keys(next)].filter(
				(key) => key !== 'type' && key !== 'options',
			),
		);
		for (const key of keys) {
			if (!same(now[key], next[key]))
				found.push({
					field: key,
					direction: type,
					current: now[key] ?? null,
					intended: next[key] ?? null,
				});
		}
		const nowOptions = (now.options ?? {}) as IDataObject;
		const nextOptions = (next.options ?? {}) as IDataObject;
		for (const key of new Set([...Object.keys(nowOptions), ...Object.keys(nextOptions)])) {
			if (!same(nowOptions[key], nextOptions[key])) {
				found.push({
					field: `options.${key}`,
					direction: type,
					current: nowOptions[key] ?? null,
					intended: nextOptions[key] ?? null,
				});
			}
		}
	}
	return found;
}

const isSet = (value: unknown): boolean => value !== '' && value !== null && value !== undefined;

/** A difference listed by Compare whose values are SIP passwords. */
const isPasswordDifference = (record: Record<string, unknown>): boolean =>
	record.field === 'options.sip_password' && 'current' in record && 'intended' in record;

/**
 * Hides SIP passwords by what they are, never by their value: every set `sip_password` field becomes
 * "(set, hidden)" (an empty or null one stays as it is: none is set), and so do the values of a
 * Compare difference in `options.sip_password`. Nothing else changes, so a password such as `udp` or
 * `1234` leaves transports, trunk names, endpoints and numbers as they are. The records are changed in
 * place (they are the node's own copies: parsed answers, bodies it built) and returned. With `show`,
 * they pass unchanged. No depth limit.
 */
export function hideSipPasswords<T extends IDataObject | IDataObject[]>(
	records: T,
	show: boolean,
): T {
	if (show) return records;
	const pending: unknown[] = [records];
	const seen = new Set<object>();
	while (pending.length > 0) {
		const value = pending.pop();
		if (value === null || typeof value !== 'object' || seen.has(value)) continue;
		seen.add(value);
		if (Array.isArray(value)) {
			pending.push(...(value as unknown[]));
			continue;
		}
		const record = value as Record<string, unknown>;
		const passwordDifference = isPasswordDifference(record);
		for (const key of Object.keys(record)) {
			const entry = record[key];
			const secret =
				key === 'sip_password' || (passwordDifference && (key === 'current' || key === 'intended'));
			if (secret && isSet(entry)) {
				setOwn(record, key, HIDDEN_PASSWORD);
			} else pending.push(entry);
		}
	}
	return records;
}

/** A number's SIP configuration: read by SIP Get, Update and Compare, and by Detach after a 409. */
export const GET_SIP = request('GET', '/sip/{phone_number}');

export async function fetchSip(api: ApiCall, phoneNumber: string): Promise<unknown> {
	return await send(api, GET_SIP, {
		values: { phone_number: { field: PHONE_NUMBER, value: phoneNumber } },
	});
}
