/**
 * The one rule for the credential's Base URL (docs/security.md, "Base URL"), used by the credential
 * test, the Voice AI node, its list pickers and the trigger, and the one check of an http(s) URL
 * (`httpUrl`, which the nodes reach through the transport's public module). It lives next to the
 * credential because both the credential and the nodes import it, and the layering rule
 * (eslint.config.mjs) lets nodes import from credentials/ but not the transport's inner files.
 *
 * The text is read by the parser that sends (WHATWG `URL`), so the host checked is the host contacted.
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

export const BASE_URL_RULE =
	'Enter the address of the Voice AI API as http:// or https://, a host, an optional port and an optional path (for example https://api.example.com or https://api.example.com/v1), with no user name or password, no backslash, no spaces, no query (?) and no fragment (#).';

/** Spaces and control characters: the parser drops tabs and line breaks silently. */
function hasSpaceOrControl(text: string): boolean {
	for (const character of text) {
		const code = character.charCodeAt(0);
		if (code <= 0x20 || code === 0x7f || /\s/.test(character)) return true;
	}
	return false;
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
	const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
	return { ok: true, url: { origin: url.origin, hostname: url.hostname, base } };
}
