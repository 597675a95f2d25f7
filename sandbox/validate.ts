import { badField, badRequest } from './errors';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const E164 = /^\+[1-9]\d{1,14}$/;
export const HEX_COLOUR = /^#[0-9A-Fa-f]{6}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** `sip:<host>`: a DNS name or an IPv4 address, nothing else (no user part, port or parameters). */
export const SIP_URI =
	/^sip:(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(?:\d{1,3}\.){3}\d{1,3})$/;
// Control characters other than tab, newline and carriage return are refused in every text field.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export const VOICES = ['maya', 'ryan', 'josh', 'june', 'nat', 'paige', 'derek', 'florian'] as const;
export const TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
export const DIRECTION_TYPES = ['inbound', 'outbound'] as const;

export function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body must be a JSON object holding only the named fields. */
export function objectBody(
	body: unknown,
	allowed: readonly string[],
	what = 'request body',
): JsonObject {
	if (body === undefined) return {};
	if (!isObject(body)) throw badRequest(`${what} must be a JSON object`);
	onlyKeys(body, allowed);
	return body;
}

export function onlyKeys(obj: JsonObject, allowed: readonly string[], prefix = ''): void {
	for (const key of Object.keys(obj)) {
		if (!allowed.includes(key)) throw badField(prefix + key, 'is not a known field');
	}
}

export function has(obj: JsonObject, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined;
}

export interface TextRules {
	max?: number;
	allowEmpty?: boolean;
}

export function text(
	value: unknown,
	field: string,
	{ max = 2000, allowEmpty = false }: TextRules = {},
): string {
	if (typeof value !== 'string') throw badField(field, 'must be a string');
	if (!allowEmpty && value.trim() === '') throw badField(field, 'must not be empty');
	if (value.length > max) throw badField(field, `must be at most ${max} characters`);
	if (CONTROL.test(value)) throw badField(field, 'must not contain control characters');
	return value;
}

export function required(obj: JsonObject, field: string, prefix = ''): Json {
	if (!has(obj, field) || obj[field] === null) throw badField(prefix + field, 'is required');
	return obj[field];
}

export function e164(value: unknown, field: string): string {
	if (typeof value !== 'string' || !E164.test(value)) {
		throw badField(field, 'must be an E.164 phone number such as +14155550101');
	}
	return value;
}

export function colour(value: unknown, field: string): string {
	if (typeof value !== 'string' || !HEX_COLOUR.test(value))
		throw badField(field, 'must be a #RRGGBB colour');
	return value;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw badField(field, `must be one of ${allowed.join(', ')}`);
	}
	return value as T;
}

export function uuid(value: unknown, field: string): string {
	if (typeof value !== 'string' || !UUID.test(value)) throw badField(field, 'must be a UUID');
	return value.toLowerCase();
}

export function boolean(value: unknown, field: string): boolean {
	if (typeof value !== 'boolean') throw badField(field, 'must be a boolean');
	return value;
}

/** Booleans in multipart forms travel as the exact strings "true" and "false". */
export function formBoolean(value: string, field: string): boolean {
	if (value === 'true') return true;
	if (value === 'false') return false;
	throw badField(field, 'must be "true" or "false"');
}

export function port(value: unknown, field: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
		throw badField(field, 'must be an integer from 1 to 65535');
	}
	return value;
}

export function httpUrl(value: unknown, field: string, max = 2048): string {
	const raw = text(value, field, { max });
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw badField(field, 'must be an absolute http or https URL');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw badField(field, 'must be an absolute http or https URL');
	}
	if (/\s/.test(raw)) throw badField(field, 'must not contain whitespace');
	return raw;
}

export function sipUri(value: unknown, field: string): string {
	const bad = () => badField(field, 'must be a SIP URI of the form sip:<host>');
	if (typeof value !== 'string' || value.length > 255 || !SIP_URI.test(value)) throw bad();
	const labels = value.slice(4).split('.');
	// All-numeric hosts must be real IPv4 addresses (four parts, each 0-255).
	if (
		labels.every((label) => /^\d+$/.test(label)) &&
		(labels.length !== 4 || labels.some((label) => Number(label) > 255))
	) {
		throw bad();
	}
	return value;
}

export function array(value: unknown, field: string, max = 100): Json[] {
	if (!Array.isArray(value)) throw badField(field, 'must be an array');
	if (value.length > max) throw badField(field, `must hold at most ${max} entries`);
	return value;
}

export function object(value: unknown, field: string): JsonObject {
	if (!isObject(value)) throw badField(field, 'must be an object');
	return value;
}
