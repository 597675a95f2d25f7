import type { IDataObject } from 'n8n-workflow';

import { shortened } from '../../transport/errors';
import { isPlainObject, setOwn } from '../../transport/secrets';
import { type ApiCall, request, send } from '../types';
import { DIRECTIONS, type DirectionType, sipField } from './fields';

/** Sent for a new direction when its field is left empty (the editor says so). */
const NEW_DIRECTION_DEFAULTS = { port: 5060, transport: 'udp', secure_media: true };
const OPTIONS = ['port', 'transport', 'secure_media', 'sip_username', 'sip_password'] as const;

export type Login = Record<'sip_username' | 'sip_password', string>;
type Options = Partial<typeof NEW_DIRECTION_DEFAULTS & Login>;
/**
 * One direction as the user asked for it; an absent field keeps what the current configuration has.
 */
export type DirectionChange = { type: DirectionType; sip_endpoint: string } & Options;

export interface SipIntent {
	phone_number: string;
	trunkName?: string;
	uuid_config_id?: string;
	changes: DirectionChange[];
	/**
	 * keep: directions not listed are sent as the current configuration has them; detach: left out.
	 */
	unlisted: 'keep' | 'detach';
	showPasswords: boolean;
}

export type CurrentSip = ReturnType<typeof readCurrentSip>;

// GET's answer (the spec shows no shape) is read only when unambiguous: one list, each type once.
export function readCurrentSip(answer: unknown) {
	const fail = (reason: string) => ({ readable: false, reason }) as const;
	const data = isPlainObject(answer) ? answer.data : undefined;
	const config = [answer, data].find(
		(candidate) => isPlainObject(candidate) && Array.isArray(candidate.directions),
	) as IDataObject | undefined;
	if (!config)
		return fail(`the answer is ${describeShape(answer)}, not an object with a directions list`);
	if (config === answer && isPlainObject(data) && 'directions' in data)
		return fail('the answer holds two directions lists (top level and under data)');
	const directions = config.directions as IDataObject[];
	for (const [index, direction] of directions.entries()) {
		if (!isPlainObject(direction) || !(DIRECTIONS as readonly unknown[]).includes(direction.type))
			return fail(`direction ${index} is not an object whose type is inbound or outbound`);
		const type = String(direction.type);
		if (directions.findIndex((other) => other.type === type) < index)
			return fail(`the ${type} direction is listed twice`);
		if (direction.options !== undefined && !isPlainObject(direction.options))
			return fail(`the options of the ${type} direction are not an object`);
	}
	return { readable: true, config, directions } as const;
}

function describeShape(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return 'text';
	if (!isPlainObject(value)) return value == null ? 'empty' : `a ${typeof value}`;
	const keys = Object.keys(value).join(', ');
	return keys ? `an object with ${shortened(keys, 60)}` : 'an empty object';
}

export const GET_SIP = request('GET', '/sip/{phone_number}');
export const fetchSip = async (api: ApiCall, value: string) =>
	await send(api, GET_SIP, { values: { phone_number: { field: sipField('phoneNumber'), value } } });
export const readSip = async (api: ApiCall, phone: string) =>
	readCurrentSip(await fetchSip(api, phone));

/** Whether the body needs the current configuration: read first; unreadable, it stops the write. */
export function needsCurrent(intent: SipIntent): boolean {
	if (intent.unlisted === 'keep' && intent.changes.length < DIRECTIONS.length) return true;
	return intent.changes.some((change) => OPTIONS.some((key) => change[key] === undefined));
}

// A changed direction keeps every field GET returned (`current` is given whenever needsCurrent).
export function buildBody(intent: SipIntent, current?: IDataObject[]): IDataObject {
	const body: IDataObject = { phone_number: intent.phone_number };
	if (intent.trunkName) body.trunkName = intent.trunkName;
	const directions: IDataObject[] = [];
	for (const type of DIRECTIONS) {
		const existing = current?.find((direction) => direction.type === type);
		const change = intent.changes.find((candidate) => candidate.type === type);
		if (change) {
			const options = {
				...((existing ? existing.options : NEW_DIRECTION_DEFAULTS) as IDataObject),
			};
			for (const key of OPTIONS) if (change[key] !== undefined) options[key] = change[key];
			directions.push({ ...existing, type, sip_endpoint: change.sip_endpoint, options });
		} else if (intent.unlisted === 'keep' && existing) directions.push(structuredClone(existing));
	}
	if (intent.changes.length > 0 || intent.unlisted === 'keep') body.directions = directions;
	if (intent.uuid_config_id) body.uuid_config_id = intent.uuid_config_id;
	return body;
}

/** A password GET shows only as mask characters: not the trunk's password, and not known. */
export const isMaskedPassword = (value: unknown) =>
	typeof value === 'string' && /^[*•●]+$/.test(value);
export const MASKED_IN_GET = '(masked by Voice AI: not known)';

/** How a kept password that GET did not show in clear reads, or undefined when it may be kept. */
function unclearPassword({ sip_password: password, sip_username: user }: IDataObject = {}) {
	const noUser = user === undefined || user === null || user === '';
	// No user name and no password: a direction without a SIP login (an IP-authenticated trunk).
	if (password === '') return noUser ? undefined : 'empty';
	if (password === undefined || password === null) return noUser ? undefined : 'missing';
	return isMaskedPassword(password) ? 'masked' : undefined;
}

export type UpdatePlan =
	| { body: IDataObject; refusal?: undefined }
	| { refusal: { type: DirectionType; problem: string; hint: string } };

/** The body SIP Update sends, or why it sends none; SIP Compare reports the same. */
export function planUpdate(intent: SipIntent, current?: IDataObject[]): UpdatePlan {
	const body = buildBody(intent, current);
	// A kept password that GET did not show in clear may not be the trunk's: never write it back.
	for (const direction of (body.directions ?? []) as IDataObject[]) {
		const type = direction.type as DirectionType;
		const supplied = intent.changes.find((change) => change.type === type)?.sip_password;
		const how = supplied === undefined && unclearPassword(direction.options as IDataObject);
		if (!how) continue;
		const problem = `GET /sip/${intent.phone_number} shows the ${type} password ${how}, so it cannot be kept`;
		const hint = `Supply the ${type} password: list the ${type} direction with its SIP Password, or set SIP Login to the SIP Trunk Login credential. The configuration was read; nothing was written.`;
		return { refusal: { type, problem, hint } };
	}
	return { body };
}

// By place, never by value: set sip_passwords and options.sip_password differences, at any depth.
export function hideSipPasswords<T extends object>(records: T, show: boolean): T {
	const pending: object[] = show ? [] : [records];
	while (pending.length > 0) {
		const record = pending.pop() as object;
		const difference = (record as IDataObject).field === 'options.sip_password';
		for (const [key, entry] of Object.entries(record)) {
			const secret = key === 'sip_password' || (difference && /^(current|intended)$/.test(key));
			if (secret && isMaskedPassword(entry)) setOwn(record, key, MASKED_IN_GET);
			else if (secret && (entry ?? '') !== '') setOwn(record, key, '(set, hidden)');
			else if (entry !== null && typeof entry === 'object') pending.push(entry);
		}
	}
	return records;
}
