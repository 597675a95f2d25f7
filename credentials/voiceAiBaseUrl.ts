/**
 * The one rule for the credential's Base URL (docs/security.md, "Base URL"), used by the credential
 * test, the Voice AI node, its list pickers and the trigger, the shape of its API key, and the one
 * check of an http(s) URL (`httpUrl`, which the nodes reach through the transport's public module).
 * It lives next to the credential because both the credential and the nodes import it, and the
 * layering rule (eslint.config.mjs) lets nodes import from credentials/ but not the transport's inner
 * files.
 *
 * The text is read by the parser that sends (WHATWG `URL`), so the host checked is the host contacted.
 * `destinationProblem` is the one rule for every URL that decides where a secret goes (this Base URL,
 * Webhook Set's Webhook URL, the trigger's Replacement Webhook URL).
 */

/** Where the requests go, as the URL parser reads the Base URL. */
export interface VoiceAiBaseUrl {
	/** Scheme, host and port, e.g. `https://api.example.com`: the host actually contacted. */
	origin: string;
	/** The host name alone, e.g. `api.example.com`. */
	hostname: string;
	/**
	 * What every API path is appended to: the origin and the URL's path without a trailing slash, e.g.
	 * `https://api.example.com` or `https://api.example.com/v1`.
	 */
	base: string;
}

export type BaseUrlCheck =
	| { ok: true; url: VoiceAiBaseUrl }
	/** `problem` completes "The Base URL …"; it never repeats the text (it may hold a password). */
	| { ok: false; problem: string };

/**
 * A path every Voice AI API serves: the credential test reads it, and the node reads it once after a 404
 * to tell a missing record from a Base URL whose path is not the API's.
 */
export const API_CHECK_PATH = '/contacts/list-names';

/** What a Voice AI API key looks like; the node checks the credential against it before sending. */
export const API_KEY_PATTERN = /^ct_\S+$/;

export const BASE_URL_RULE =
	'Enter the address of the Voice AI API as http:// or https://, a host, an optional port and an optional path (for example https://api.example.com or https://api.example.com/v1), with no user name or password, no backslash, no spaces, no query (?), no fragment (#) and a host in plain ASCII letters, digits, dots and dashes, as the URL parser reads it.';

/** Spaces and control characters: the parser drops tabs and line breaks silently. */
function hasSpaceOrControl(text: string): boolean {
	for (const character of text) {
		const code = character.charCodeAt(0);
		if (code <= 0x20 || code === 0x7f || /\s/.test(character)) return true;
	}
	return false;
}

/** Half of a surrogate pair without its other half: not a character; encodeURIComponent throws on it. */
export const LONE_SURROGATE =
	/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What a refusal of text with a LONE_SURROGATE says, completing "<the field> …". */
export const HALF_CHARACTER =
	'holds half of a character (a lone UTF-16 surrogate, as when text is cut in the middle of an emoji)';

/**
 * The host as written: after the scheme and any slashes, before the path, query or fragment, without
 * user info (up to the authority's last `@`, as the parser reads it) and port.
 */
function writtenHost(text: string): string {
	const authority = text
		.slice(text.indexOf(':') + 1)
		.replace(/^[/\\]*/, '')
		.split(/[/\\?#]/, 1)[0];
	const host = authority.slice(authority.lastIndexOf('@') + 1);
	if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
	const colon = host.indexOf(':');
	return colon < 0 ? host : host.slice(0, colon);
}

/**
 * Why `url` (the parser's reading of `text`) may not receive a secret, completing "<the field> …", or
 * undefined when it may: the host as written, lower-cased, must be the host the parser contacts.
 * Anything the parser had to map (non-ASCII letters, percent escapes, Unicode dots or slashes, IDNA,
 * short IPv4 forms) is refused naming the host it would contact; a lone surrogate (which the parser
 * replaces) too. Never shows the text: it may hold user info or a token.
 */
export function destinationProblem(text: string, url: URL): string | undefined {
	if (LONE_SURROGATE.test(text)) return HALF_CHARACTER;
	if (writtenHost(text).toLowerCase() === url.hostname) return undefined;
	return `holds a host the URL parser has to map: the URL parser contacts ${url.host}, not the host as written (it maps non-ASCII letters, percent escapes, Unicode dots and slashes, short IP addresses)`;
}

/**
 * The URL when the value is an http:// or https:// address, undefined otherwise. The parser gives an
 * http(s) URL a host or refuses it, so no separate check for an empty host is needed.
 */
export function httpUrl(value: string): URL | undefined {
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
	} catch {
		return undefined;
	}
}

export function parseBaseUrl(value: unknown): BaseUrlCheck {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') return { ok: false, problem: 'is empty' };
	const url = httpUrl(text);
	const contacted = url ? ` (the URL parser reads the host as ${url.origin})` : '';
	if (text.includes('\\'))
		return {
			ok: false,
			problem: `holds a backslash (\\), which the URL parser reads as a slash${contacted}`,
		};
	if (hasSpaceOrControl(text))
		return { ok: false, problem: 'holds a space or a control character' };
	if (url === undefined)
		return { ok: false, problem: 'is not an http:// or https:// address of the Voice AI API' };
	if (url.username !== '' || url.password !== '')
		return {
			ok: false,
			problem: `holds a user name or password before the host${contacted}; the key travels only in a header`,
		};
	if (text.includes('?') || text.includes('#') || url.search !== '' || url.hash !== '')
		return {
			ok: false,
			problem: 'holds a query (?) or a fragment (#): every request would go to that one address',
		};
	const mapped = destinationProblem(text, url);
	if (mapped) return { ok: false, problem: mapped };
	const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
	return { ok: true, url: { origin: url.origin, hostname: url.hostname, base } };
}

/** What a request carries that says where it goes: n8n's `url` and `baseURL`, or the legacy `uri`. */
export interface RequestTarget {
	url?: unknown;
	uri?: unknown;
	baseURL?: unknown;
}

/** An absolute URL as axios, which sends n8n's requests, tells it from a path to join to `baseURL`. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * Why a request made with the credential may not carry the key, or undefined when it may: it must go
 * to the base URL's origin, to a path within the base URL's path (as the URL parser reads it, so `..`
 * cannot leave it). The request's URL is joined to its `baseURL` as axios joins them. Names the origin
 * the request goes to, never its path or query (they may carry anything).
 */
export function outsideBaseUrl(base: VoiceAiBaseUrl, request: RequestTarget): string | undefined {
	const raw = request.url ?? request.uri;
	const url = raw === undefined || raw === null ? '' : String(raw);
	const baseURL = request.baseURL === undefined ? '' : String(request.baseURL);
	const joined =
		baseURL && !ABSOLUTE_URL.test(url)
			? url
				? `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}`
				: baseURL
			: url;
	let target: URL;
	try {
		target = new URL(joined);
	} catch {
		return 'this request has no address the URL parser reads';
	}
	if (target.origin !== base.origin) return `this request goes to ${target.origin}`;
	const basePath = base.base.slice(base.origin.length);
	if (basePath && target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`))
		return `this request goes to a path of ${target.origin} outside ${basePath}`;
	return undefined;
}
