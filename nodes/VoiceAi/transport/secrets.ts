/**
 * Every secret the node holds or sends in one execution (the API key, user info of the base URL, SIP
 * passwords and tokens in URLs it sends), removed by exact value from what it shows: error messages,
 * descriptions and output items. Exact values, because a secret has no pattern one could rely on.
 */

/** Voice AI keys; also removed by pattern, so a key the node never held (another one echoed back) goes too. */
const KEY_PATTERN = /ct_[A-Za-z0-9_-]+/g;
const MASK = '***';
/** Stands in for a secret until every secret is replaced, so a later secret cannot match inside the mask. */
const MARK = '\u0000';

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
const MAX_DEPTH = 10;

function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (value === null || typeof value !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as unknown;
	return prototype === Object.prototype || prototype === null;
}

function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

export class Secrets {
	/** Every form of every secret, longest first (so `user:pass` goes before `pass`). */
	private forms: string[] = [];

	private readonly known = new Set<string>();

	/** Adds one secret value in the forms it may take in a message: as is, URL-encoded, JSON-escaped. */
	add(value: unknown): void {
		if (typeof value !== 'string') return;
		let changed = false;
		for (const text of new Set([value, value.trim()])) {
			if (text === '' || text.includes(MARK)) continue;
			const forms = [
				text,
				encodeURIComponent(text),
				new URLSearchParams({ v: text }).toString().slice(2),
				JSON.stringify(text).slice(1, -1),
			];
			for (const form of forms) {
				if (this.known.has(form)) continue;
				this.known.add(form);
				changed = true;
			}
		}
		if (changed) this.forms = [...this.known].sort((a, b) => b.length - a.length);
	}

	/** The user info of an http(s) URL (`user:pass@`) and the values of secret query parameters. */
	addFromUrl(text: string): void {
		let url: URL;
		try {
			url = new URL(text);
		} catch {
			return;
		}
		const userInfo = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(text.trim())?.[1];
		if (userInfo) {
			this.add(userInfo);
			this.add(decoded(userInfo));
		}
		if (url.password) {
			this.add(url.password);
			this.add(decoded(url.password));
		}
		if (url.search) {
			for (const name of SECRET_QUERY_PARAMETERS)
				for (const value of url.searchParams.getAll(name)) this.add(value);
		}
	}

	/** Walks a request body (or an operation's input): `sip_password` fields and secrets in URLs. */
	collect(value: unknown, depth = 0): void {
		if (typeof value === 'string') {
			if (value.startsWith('http://') || value.startsWith('https://')) this.addFromUrl(value);
			return;
		}
		if (depth >= MAX_DEPTH) return;
		if (Array.isArray(value)) {
			for (const entry of value) this.collect(entry, depth + 1);
			return;
		}
		if (!isPlainObject(value)) return;
		for (const [key, entry] of Object.entries(value)) {
			if (SECRET_FIELDS.has(key)) this.add(entry);
			else this.collect(entry, depth + 1);
		}
	}

	/** The text without any secret (each occurrence becomes ***) and without anything shaped like a key. */
	redact(text: string): string {
		let out = text.replace(KEY_PATTERN, 'ct_***');
		let found = false;
		for (const form of this.forms) {
			if (!out.includes(form)) continue;
			out = out.split(form).join(MARK);
			found = true;
		}
		return found ? out.split(MARK).join(MASK) : out;
	}

	/** A copy of `value` with every string redacted; unchanged parts (and a clean value) keep their identity. */
	redactValue<T>(value: T, depth = 0): T {
		if (typeof value === 'string') return this.redact(value) as T;
		if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
		if (Array.isArray(value)) {
			let copy: unknown[] | undefined;
			value.forEach((entry, index) => {
				const clean = this.redactValue(entry as unknown, depth + 1);
				if (clean === entry) return;
				copy ??= [...value];
				copy[index] = clean;
			});
			return (copy ?? value) as T;
		}
		if (!isPlainObject(value)) return value;
		let copy: Record<string, unknown> | undefined;
		for (const [key, entry] of Object.entries(value)) {
			const clean = this.redactValue(entry, depth + 1);
			if (clean === entry) continue;
			copy ??= { ...value };
			copy[key] = clean;
		}
		return (copy ?? value) as T;
	}

	/**
	 * Redacts an error in place before anyone shows, stores or logs it: message, description, stack, and
	 * what n8n keeps of it in execution data (messages, context, the error it wraps).
	 */
	redactError<E extends Error>(error: E, depth = 0): E {
		const target = error as E & {
			description?: unknown;
			messages?: unknown;
			context?: unknown;
			cause?: unknown;
		};
		target.message = this.redact(String(target.message));
		if (typeof target.description === 'string')
			target.description = this.redact(target.description);
		if (typeof target.stack === 'string') target.stack = this.redact(target.stack);
		if (Array.isArray(target.messages)) target.messages = this.redactValue(target.messages);
		if (isPlainObject(target.context)) target.context = this.redactValue(target.context);
		if (target.cause instanceof Error && depth < 3) this.redactError(target.cause, depth + 1);
		else if (target.cause !== undefined) target.cause = this.redactValue(target.cause);
		return error;
	}
}
