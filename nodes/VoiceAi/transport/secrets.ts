/**
 * Every secret the node holds or sends in one execution (the API key, user info of the base URL, SIP
 * passwords and tokens in URLs it sends), and the two ways it is hidden (docs/security.md):
 * - free text a person reads (error messages, descriptions, stacks, so n8n's log): every held secret is
 *   removed wherever it appears, and a key the node never held where it stands as a whole key would;
 * - output items: a held secret of LONG_SECRET characters or more is removed wherever it appears in a
 *   value (a SIP password unless the item asks to show SIP passwords); a value wholly equal to the key
 *   or a secret of a URL is hidden; every other value and every key stays as the service sent it. SIP
 *   passwords are hidden by their field, by the SIP operations, because SIP data holds short values a
 *   password may equal (`udp`, `1234`).
 * Walks have no depth limit (iterative, cycle-safe), so nothing deep escapes.
 */

import { LONE_SURROGATE } from '../../../credentials/voiceAiBaseUrl';
import { decoded, formDecoded, isPlainObject, refusedUserInfo, setOwn } from './answer';

/**
 * A key the node never held, in free text: `ct_` and at least 20 characters of letters, digits, `_` and
 * `-`, as one whole token. The spec fixes only the prefix; the length is the shortest random part that
 * is still a secret, so words and names such as `ct_leads` or `Direct_Sales` never match.
 */
const UNHELD_KEY = /(?<![A-Za-z0-9_-])ct_[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g;
const KEY_SHAPE = /^ct_\S+$/;
const MASK = '***';
/**
 * From this length a held secret is removed from inside output values too: a random secret this long
 * does not occur in ordinary data, and one echoed inside a longer value (a URL) is a leak.
 */
const LONG_SECRET = 16;

/** Body fields whose values are secrets wherever they occur (SIP options in the spec). */
const SECRET_FIELDS = new Set(['sip_password']);
/** Query parameters of URLs the node sends (webhook URLs) whose values are secrets. */
const SECRET_QUERY_PARAMETERS = [
	'token',
	'key',
	'apikey',
	'api_key',
	'secret',
	'password',
	'signature',
	'sig',
	'access_token',
];

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container =>
	Array.isArray(value) || isPlainObject(value);

function shallowCopy(source: Container): Container {
	if (Array.isArray(source)) return [...source];
	const copy = Object.create(Object.getPrototypeOf(source) as object | null) as Container;
	for (const key of Object.keys(source)) setOwn(copy, key, source[key]);
	return copy;
}

interface Frame {
	source: Container;
	keys: string[];
	next: number;
	copy?: Container;
}

/**
 * A copy of `value` with `leaf` applied to every string in arrays and plain objects, at any depth (with
 * the key the string stands under). Containers nothing changed in keep their identity; a value shared
 * or cyclic is handled once.
 */
function mapStrings<T>(value: T, leaf: (text: string, key?: string) => string): T {
	if (typeof value === 'string') return leaf(value) as T;
	if (!isContainer(value)) return value;
	const done = new Map<Container, Container>();
	const open = new Map<Container, Frame>();
	const frameOf = (source: Container): Frame => {
		const frame = { source, keys: Object.keys(source), next: 0 };
		open.set(source, frame);
		return frame;
	};
	const stack = [frameOf(value)];
	let result: Container = value;
	let returned: Container | undefined;
	while (stack.length > 0) {
		const frame = stack[stack.length - 1];
		const read = frame.source as Record<string, unknown>;
		if (returned !== undefined) {
			const key = frame.keys[frame.next - 1];
			if (returned !== read[key]) setOwn((frame.copy ??= shallowCopy(frame.source)), key, returned);
			returned = undefined;
		}
		let descended = false;
		while (frame.next < frame.keys.length) {
			const key = frame.keys[frame.next++];
			const entry = read[key];
			let clean: unknown = entry;
			if (typeof entry === 'string') clean = leaf(entry, key);
			else if (isContainer(entry)) {
				const cycle = open.get(entry);
				if (cycle) clean = cycle.copy ??= shallowCopy(cycle.source);
				else if (done.has(entry)) clean = done.get(entry);
				else {
					stack.push(frameOf(entry));
					descended = true;
					break;
				}
			}
			if (clean !== entry) setOwn((frame.copy ??= shallowCopy(frame.source)), key, clean);
		}
		if (descended) continue;
		stack.pop();
		open.delete(frame.source);
		result = frame.copy ?? frame.source;
		done.set(frame.source, result);
		if (stack.length > 0) returned = result;
	}
	return result as T;
}

/**
 * `text` with each occurrence of a form replaced by ***; `forms` longest first, so `user:pass` goes
 * before `pass` and a shorter form never matches inside a longer one already found. (A range found
 * earlier is at least as long as the candidate, so it overlaps the candidate only by covering one of
 * its ends: checking the two ends is enough, and the work stays linear in the text.)
 */
function masked(text: string, forms: readonly string[]): string {
	const found: Array<[number, number]> = [];
	let covered: Uint8Array | undefined;
	for (const form of forms) {
		for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
			const end = at + form.length;
			covered ??= new Uint8Array(text.length);
			if (covered[at] || covered[end - 1]) continue;
			covered.fill(1, at, end);
			found.push([at, end]);
		}
	}
	if (found.length === 0) return text;
	found.sort((a, b) => a[0] - b[0]);
	let out = '';
	let from = 0;
	for (const [start, stop] of found) {
		out += text.slice(from, start) + MASK;
		from = stop;
	}
	return out + text.slice(from);
}

const longestFirst = (forms: Iterable<string>) => [...forms].sort((a, b) => b.length - a.length);

export class Secrets {
	/** Every form of every secret, longest first: for free text. */
	private forms: string[] = [];

	private readonly known = new Set<string>();

	/**
	 * Forms of the secrets of LONG_SECRET characters or more, longest first, for output values: without
	 * and with the secrets of fields (SIP passwords), which an item may ask to show.
	 */
	private longForms: string[] = [];

	private longFormsWithFields: string[] = [];

	private readonly knownLong = new Set<string>();

	private readonly knownLongFields = new Set<string>();

	/** Forms of the secrets an output value is hidden for when it is wholly one of them. */
	private readonly wholeValues = new Set<string>();

	/** Adds the API key or a secret of a URL: removed from free text, and hides an output value wholly equal to it. */
	add(value: unknown): void {
		this.addForms(value, true);
	}

	/**
	 * The user info of an http(s) URL (`user:pass@`) as the URL parser reads it (so `host\@` is a host,
	 * not user info) and the values of secret query parameters; of a URL the parser refuses too, since
	 * its refusal shows it back: there the user info is what stands before the authority's last `@`.
	 */
	addFromUrl(text: string): void {
		const queryAt = text.indexOf('?');
		if (queryAt >= 0) this.addQuerySecrets(text.slice(queryAt + 1).split('#', 1)[0]);
		let url: URL | undefined;
		try {
			url = new URL(text);
		} catch {
			url = undefined;
		}
		const userInfo = url
			? url.password === ''
				? url.username
				: `${url.username}:${url.password}`
			: refusedUserInfo(text);
		if (!userInfo) return;
		const colon = userInfo.indexOf(':');
		for (const secret of colon < 0 ? [userInfo] : [userInfo, userInfo.slice(colon + 1)]) {
			this.add(secret);
			this.add(decoded(secret));
		}
	}

	/** Values of the secret parameters of a query string (names in any case), as they stand and decoded. */
	private addQuerySecrets(query: string): void {
		for (const pair of query.split('&')) {
			const equals = pair.indexOf('=');
			if (equals < 0) continue;
			const value = pair.slice(equals + 1);
			if (
				!value ||
				!SECRET_QUERY_PARAMETERS.includes(formDecoded(pair.slice(0, equals)).toLowerCase())
			)
				continue;
			this.add(value);
			this.add(formDecoded(value));
		}
	}

	/** Walks a request body (or an operation's input), at any depth: `sip_password` fields and secrets in URLs. */
	collect(value: unknown): void {
		mapStrings(value, (text, key) => {
			// A SIP password: free text only; output items hide it by its field (sip/configuration.ts).
			if (key !== undefined && SECRET_FIELDS.has(key)) this.addForms(text, false);
			else {
				// Every text an http(s) URL may be read from, as the parser reads schemes (`https:host` too).
				const trimmed = text.trim();
				const scheme = trimmed.slice(0, 6).toLowerCase();
				if (scheme.startsWith('http:') || scheme.startsWith('https:')) this.addFromUrl(trimmed);
			}
			return text;
		});
	}

	/** Free text without any held secret (each occurrence becomes ***) and without a key it never held. */
	redact(text: string): string {
		// Key-shaped tokens first: a short held secret inside one (a SIP password `p`) must not split it.
		return masked(text.replace(UNHELD_KEY, `ct_${MASK}`), this.forms);
	}

	/** Every string of `value` as free text (`redact`), at any depth: for error items of Continue On Fail. */
	redactText<T>(value: T): T {
		return mapStrings(value, (text) => this.redact(text));
	}

	/**
	 * An output item as the user gets it: a string wholly equal to the key or a secret of a URL (in any
	 * of its forms) becomes ***, and each occurrence of a long secret inside a string becomes ***; every
	 * other character and every key is unchanged. Unchanged parts (and a clean value) keep their identity.
	 * `fieldSecretsShown`: the item asked to show SIP passwords, so a long one stays too.
	 */
	redactValue<T>(value: T, fieldSecretsShown = false): T {
		const long = fieldSecretsShown ? this.longForms : this.longFormsWithFields;
		if (this.wholeValues.size === 0 && long.length === 0) return value;
		return mapStrings(value, (text) =>
			this.wholeValues.has(text) || this.wholeValues.has(text.trim()) ? MASK : masked(text, long),
		);
	}

	/**
	 * Redacts an error in place before anyone shows, stores or logs it: message, description, stack, and
	 * what n8n keeps of it in execution data (messages, context, the answer it was made from, the errors
	 * it wraps, however many).
	 */
	redactError<E extends Error>(error: E): E {
		const pending: Error[] = [error];
		const seen = new Set<Error>();
		const freeText = (text: string) => this.redact(text);
		while (pending.length > 0) {
			const target = pending.pop() as Error & {
				description?: unknown;
				messages?: unknown;
				context?: unknown;
				errorResponse?: unknown;
				cause?: unknown;
			};
			if (seen.has(target)) continue;
			seen.add(target);
			target.message = this.redact(String(target.message));
			if (typeof target.description === 'string')
				target.description = this.redact(target.description);
			if (typeof target.stack === 'string') target.stack = this.redact(target.stack);
			if (target.messages !== undefined) target.messages = mapStrings(target.messages, freeText);
			if (target.context !== undefined) target.context = mapStrings(target.context, freeText);
			if (target.errorResponse !== undefined)
				target.errorResponse = mapStrings(target.errorResponse, freeText);
			if (target.cause instanceof Error) pending.push(target.cause);
			else if (target.cause !== undefined) target.cause = mapStrings(target.cause, freeText);
		}
		return error;
	}

	/**
	 * One secret in the forms it may take: as is, trimmed, URL-encoded, form-encoded, JSON-escaped. Text
	 * with a lone surrogate has no URL-encoded form (the fields that carry secrets refuse it before).
	 */
	private addForms(value: unknown, wholeValue: boolean): void {
		if (typeof value !== 'string') return;
		let changed = false;
		for (const text of new Set([value, value.trim()])) {
			if (text === '') continue;
			const forms = [
				text,
				...(LONE_SURROGATE.test(text) ? [] : [encodeURIComponent(text)]),
				new URLSearchParams({ v: text }).toString().slice(2),
				JSON.stringify(text).slice(1, -1),
			];
			// An output value may also be the key as the header value that carries it.
			if (wholeValue && KEY_SHAPE.test(text)) this.wholeValues.add(`Bearer ${text}`);
			const long = text.length >= LONG_SECRET;
			const knownLong = wholeValue ? this.knownLong : this.knownLongFields;
			for (const form of forms) {
				if (wholeValue) this.wholeValues.add(form);
				if (long && !knownLong.has(form)) {
					knownLong.add(form);
					changed = true;
				}
				if (this.known.has(form)) continue;
				this.known.add(form);
				changed = true;
			}
		}
		if (changed) {
			this.forms = longestFirst(this.known);
			this.longForms = longestFirst(this.knownLong);
			this.longFormsWithFields = longestFirst([...this.knownLong, ...this.knownLongFields]);
		}
	}
}
