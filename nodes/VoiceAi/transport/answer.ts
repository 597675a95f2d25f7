import type { IDataObject } from 'n8n-workflow';

import { HALF_CHARACTER, LONE_SURROGATE } from '../../../credentials/voiceAiBaseUrl';

// index.ts exports all of this: keep here only what the rest of the node may use.

export const headerValue = (value: string | string[] | undefined) =>
	Array.isArray(value) ? value[0] : value;

export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const shortened = (text: string, max: number) =>
	text.length > max ? `${text.slice(0, max - 3)}...` : text;

export function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** As the URL parser splits an authority: before its last `@`. */
export function refusedUserInfo(text: string): string | undefined {
	const authority = /^[^:]*:[/\\]*([^/\\?#]*)/.exec(text)?.[1] ?? '';
	const at = authority.lastIndexOf('@');
	return at > 0 ? authority.slice(0, at) : undefined;
}

/** Made by JSON or a form parser: its prototype is null or an `Object.prototype` of any realm. */
export function isPlainObject(value: unknown): value is IDataObject {
	if (value === null || typeof value !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as object | null;
	return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/** An own field also when `key` is `__proto__` (an assignment would set the prototype). */
export const setOwn = (to: object, key: string, value: unknown) =>
	Object.defineProperty(to, key, { value, writable: true, enumerable: true, configurable: true });

/** Even percent-encoded, within the 8 KB request line servers accept (no 414 or 431). */
const MAX_PATH_VALUE = 512;

export function pathValueProblem(value: string): string | undefined {
	if (value === '') return 'it is empty';
	if (value === '.' || value === '..')
		return `${JSON.stringify(value)} would address another resource than the one meant`;
	if (value.includes('/'))
		return `${JSON.stringify(shortened(value, 60))} contains a slash, which would change the request path`;
	if (LONE_SURROGATE.test(value)) return `it ${HALF_CHARACTER}`;
	if (value.length > MAX_PATH_VALUE)
		return `it has ${value.length} characters, more than ${MAX_PATH_VALUE} (the longest id this node sends)`;
	return undefined;
}

/** For answers whose shape the spec does not give. */
export function listIn(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (body === null || typeof body !== 'object') return undefined;
	const arrays = Object.values(body).filter((value) => Array.isArray(value));
	return arrays.length === 1 ? (arrays[0] as unknown[]) : undefined;
}
