// What is hidden where, and why: docs/security.md ("How redaction works").
import type { IDataObject } from 'n8n-workflow';

import { API_KEY_PATTERN, LONE_SURROGATE, refusedUserInfo } from '../../../credentials/urlRules';

// What redaction walks values with; the SIP body and the trigger's items use them too.
export function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
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

/** A key never held, as a whole token: `ct_leads` and `Direct_Sales` never match. */
const UNHELD_KEY = /(?<![A-Za-z0-9_-])ct_[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g;
const MASK = '***';
/** From this length a held secret is hidden inside output values too. */
const LONG_SECRET = 16;
const SECRET_QUERY_PARAMETER =
	/^(token|key|apikey|api_key|secret|password|signature|sig|access_token)$/;

const formDecoded = (text: string) => decoded(text.replaceAll('+', ' '));

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container =>
	Array.isArray(value) || isPlainObject(value);

/**
 * At any depth, without recursion. Copies only containers holding a changed string at some depth
 * (`__proto__` stays an own field); shared and cyclic ones stay so.
 */
function mapStrings<T>(value: T, leaf: (text: string, key?: string) => string): T {
	if (!isContainer(value)) return (typeof value === 'string' ? leaf(value) : value) as T;
	// Every container reached, with those holding it: a Map's loop also visits entries added in it.
	const holders = new Map<Container, Container[]>([[value, []]]);
	const changed = new Set<Container>();
	for (const [source] of holders)
		for (const [key, entry] of Object.entries(source)) {
			if (!isContainer(entry)) {
				if (typeof entry === 'string' && leaf(entry, key) !== entry) changed.add(source);
			} else if (!holders.get(entry)?.push(source)) holders.set(entry, [source]);
		}
	for (const source of changed) for (const holder of holders.get(source) ?? []) changed.add(holder);
	const copies = new Map<unknown, Container>();
	for (const from of changed)
		copies.set(from, Array.isArray(from) ? [...from] : Object.create(Object.getPrototypeOf(from)));
	for (const [source, copy] of copies)
		for (const [key, entry] of Object.entries(source as Container)) {
			const clean = typeof entry === 'string' ? leaf(entry, key) : copies.get(entry);
			setOwn(copy, key, clean ?? entry);
		}
	return (copies.get(value) ?? value) as T;
}

/**
 * `forms` longest first: a shorter form never matches inside a longer one found. Linear in `text`.
 */
function masked(text: string, forms: readonly string[]): string {
	// Start and end of each occurrence kept, one after the other; in text order while one matched.
	const found: number[] = [];
	let covered: Uint8Array | undefined;
	let formsFound = 0;
	for (const form of forms) {
		const before = found.length;
		for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
			const end = at + form.length;
			covered ??= new Uint8Array(text.length);
			if (covered[at] || covered[end - 1]) continue;
			covered.fill(1, at, end);
			found.push(at, end);
		}
		if (found.length > before) formsFound++;
	}
	if (found.length === 0) return text;
	const order = Array.from({ length: found.length / 2 }, (_, pair) => 2 * pair);
	if (formsFound > 1) order.sort((a, b) => found[a] - found[b]);
	// From the first to the last, each piece copied once: a copy of the whole text per occurrence
	// (slicing around each one) made this quadratic (issue 51).
	let out = '';
	let from = 0;
	for (const at of order) {
		out += text.slice(from, found[at]) + MASK;
		from = found[at + 1];
	}
	return out + text.slice(from);
}

const longestFirst = (forms: Iterable<string>) => [...forms].sort((a, b) => b.length - a.length);

export class Secrets {
	private readonly known = new Set<string>();
	/** Forms of LONG_SECRET characters or more: of the key and URL secrets, and of field secrets. */
	private readonly long = new Set<string>();
	private readonly longOfFields = new Set<string>();
	private readonly wholeValues = new Set<string>();
	/** Longest first, made when first needed after a change. */
	private sorted: { known?: string[]; long?: string[]; all?: string[] } = {};

	/** A refused URL's user info too: the refusal shows it. */
	addFromUrl(text: string): void {
		const query = /\?([^#]*)/.exec(text)?.[1] ?? '';
		for (const [, name, value] of query.matchAll(/(?:^|&)([^&=]*)=([^&]+)/g)) {
			if (!SECRET_QUERY_PARAMETER.test(formDecoded(name).toLowerCase())) continue;
			this.add(value);
			this.add(formDecoded(value));
		}
		const url = URL.canParse(text) ? new URL(text) : undefined;
		// The whole user info and its password (a user name holds no raw colon).
		const userInfo = url
			? `${url.username}:${url.password}`.replace(/:$/, '')
			: refusedUserInfo(text);
		if (!userInfo) return;
		for (const secret of new Set([userInfo, userInfo.slice(userInfo.indexOf(':') + 1)])) {
			this.add(secret);
			this.add(decoded(secret));
		}
	}

	collect(value: unknown): void {
		mapStrings(value, (text, key) => {
			// Output items hide a SIP password by its field (sip/configuration.ts).
			if (key === 'sip_password') this.add(text, false);
			else if (/^https?:/i.test(text.trim())) this.addFromUrl(text.trim());
			return text;
		});
	}

	redact(text: string): string {
		// Key-shaped tokens first: a short held secret inside one (SIP password `p`) must not split it.
		return masked(
			text.replace(UNHELD_KEY, `ct_${MASK}`),
			(this.sorted.known ??= longestFirst(this.known)),
		);
	}

	/** For errors and failed items: every held secret, wherever it appears in a string. */
	readonly redactForError = <T>(value: T): T => mapStrings(value, (text) => this.redact(text));

	/**
	 * For output items: whole values and long secrets only, so no other byte changes.
	 * `fieldSecretsShown`: SIP passwords shown.
	 */
	redactForOutput<T>(value: T, fieldSecretsShown = false): T {
		const long = fieldSecretsShown
			? (this.sorted.long ??= longestFirst(this.long))
			: (this.sorted.all ??= longestFirst([...this.long, ...this.longOfFields]));
		if (this.wholeValues.size === 0 && long.length === 0) return value;
		return mapStrings(value, (text) =>
			this.wholeValues.has(text) || this.wholeValues.has(text.trim()) ? MASK : masked(text, long),
		);
	}

	/** In place, with every error it wraps and what n8n keeps of it. */
	redactError<E extends Error>(error: E): E {
		const seen = new Set<Error>();
		for (let target: Error | undefined = error; target && !seen.has(target); ) {
			seen.add(target);
			const fields = target as unknown as Record<string, unknown>;
			target.message = this.redact(String(target.message));
			for (const name of ['description', 'stack', 'messages', 'context', 'errorResponse', 'cause'])
				if (fields[name] !== undefined && !(fields[name] instanceof Error))
					fields[name] = this.redactForError(fields[name]);
			target = fields.cause instanceof Error ? fields.cause : undefined;
		}
		return error;
	}

	/** `wholeValue`: an output value equal to it is hidden (not so a SIP password: by its field). */
	add(value: unknown, wholeValue = true): void {
		if (typeof value !== 'string') return;
		for (const text of new Set([value, value.trim()])) {
			if (text === '') continue;
			// An output value may also be the key as the header value that carries it.
			if (wholeValue && API_KEY_PATTERN.test(text)) this.wholeValues.add(`Bearer ${text}`);
			for (const form of [
				text,
				...(LONE_SURROGATE.test(text) ? [] : [encodeURIComponent(text)]),
				new URLSearchParams({ v: text }).toString().slice(2),
				JSON.stringify(text).slice(1, -1),
			]) {
				this.known.add(form);
				if (wholeValue) this.wholeValues.add(form);
				if (text.length >= LONG_SECRET) (wholeValue ? this.long : this.longOfFields).add(form);
			}
		}
		this.sorted = {};
	}
}
