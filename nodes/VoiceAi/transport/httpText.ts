import type { IDataObject } from 'n8n-workflow';

// Reading what HTTP carries, in one place for the action node and the trigger: headers as Node's http
// module hands them over, percent-encoded text, a byte-order mark, text cut to fit a message, and data
// as JSON gives it.
// http(s) URLs are read in one place too, next to the Base URL rule (credentials/voiceAiBaseUrl.ts
// `httpUrl`), which the credential also uses.

/** A header's value; a repeated header comes as a list, of which the first counts. */
export function headerValue(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}

/** A byte-order mark is not part of the text (n8n 2.x drops it from JSON and form bodies too). */
export function withoutBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Text of at most `max` characters for a message: a longer one is cut, ending in `...`. */
export function shortened(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** Percent-decoded text; text that is not valid percent-encoding stays as it is. */
export function decoded(text: string): string {
	if (!text.includes('%')) return text;
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** Text of a query string as a form decodes it (`+` is a space). */
export function formDecoded(text: string): string {
	return decoded(text.split('+').join(' '));
}

/**
 * The user info of a URL the parser refused: what stands before the last `@` of its authority (after
 * the scheme's `:` and any slashes, as the parser reads `https:user:pw@host` too; up to the first `/`,
 * `\\`, `?` or `#`), or undefined.
 */
export function refusedUserInfo(text: string): string | undefined {
	const colon = text.indexOf(':');
	if (colon < 0) return undefined;
	const rest = text.slice(colon + 1).replace(/^[/\\]*/, '');
	const ends = ['/', '\\', '?', '#'].map((mark) => rest.indexOf(mark)).filter((at) => at >= 0);
	const authority = rest.slice(0, ends.length ? Math.min(...ends) : rest.length);
	const at = authority.lastIndexOf('@');
	return at > 0 ? authority.slice(0, at) : undefined;
}

// Data as JSON gives it (the service's answers, a delivery's body), handled so that keys such as
// `__proto__` or `constructor` stay data: one place for the transport, the operations and the trigger.
/**
 * An object as JSON or a form parser makes it: its prototype is an `Object.prototype` (of any realm)
 * or null. Arrays, buffers, dates and class instances are not.
 */
export function isPlainObject(value: unknown): value is IDataObject {
	if (value === null || typeof value !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as object | null;
	return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/** Sets `key` as an own field, also when it is `__proto__` (an assignment would set the prototype). */
export function setOwn(target: object, key: string, value: unknown): void {
	Object.defineProperty(target, key, {
		value,
		writable: true,
		enumerable: true,
		configurable: true,
	});
}
