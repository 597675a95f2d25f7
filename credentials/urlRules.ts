// The rules of the URLs a secret may go to (the Base URL, a webhook or SIP address): each is read
// by the sending parser (WHATWG URL), so the host checked is the host contacted.

/**
 * A path every Voice AI API serves: the credential test reads it; the node reads it after a 404.
 */
export const API_CHECK_PATH = '/contacts/list-names';
export const API_KEY_PATTERN = /^ct_\S+$/;
export const BASE_URL_RULE =
	'Enter the address of the Voice AI API as http:// or https://, a host, an optional port and an optional path (for example https://api.example.com or https://api.example.com/v1), with no user name or password, no backslash, no spaces, no query (?), no fragment (#) and a host in plain ASCII letters, digits, dots and dashes, as the URL parser reads it.';

/**
 * Half of a surrogate pair alone (encodeURIComponent throws on it), and what completes
 * "<field> …".
 */
export const LONE_SURROGATE =
	/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const HALF_CHARACTER =
	'holds half of a character (a lone UTF-16 surrogate, as when text is cut in the middle of an emoji)';

// Why `url` (`text` parsed) may not get a secret, completing "<field> …" without the text:
// the host as written (after the last `@`, no port), lower-cased, must be the host contacted.
export function destinationProblem(text: string, url: URL): string | undefined {
	if (LONE_SURROGATE.test(text)) return HALF_CHARACTER;
	const host = /:[/\\]*(?:[^/\\?#]*@)?([^/\\?#]*)/.exec(text)?.[1] ?? '';
	const written = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
	if (written.toLowerCase() === url.hostname) return undefined;
	return `holds a host the URL parser has to map: the URL parser contacts ${url.host}, not the host as written (it maps non-ASCII letters, percent escapes, Unicode dots and slashes, short IP addresses)`;
}

/** As the URL parser splits an authority: before its last `@`. */
export function refusedUserInfo(text: string): string | undefined {
	const authority = /^[^:]*:[/\\]*([^/\\?#]*)/.exec(text)?.[1] ?? '';
	const at = authority.lastIndexOf('@');
	return at > 0 ? authority.slice(0, at) : undefined;
}

/** The URL when `value` is an http(s) address (the parser then always gives it a host). */
export function httpUrl(value: string): URL | undefined {
	const url = URL.canParse(value) ? new URL(value) : undefined;
	return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : undefined;
}

/**
 * `problem` completes "The Base URL …", never showing the text; API paths are appended to `base`.
 */
export function parseBaseUrl(value: unknown) {
	const text = typeof value === 'string' ? value.trim() : '';
	const url = httpUrl(text);
	const contacted = url ? ` (the URL parser reads the host as ${url.origin})` : '';
	const refuse = (problem: string) => ({ ok: false as const, problem });
	if (text === '') return refuse('is empty');
	if (text.includes('\\'))
		return refuse(`holds a backslash (\\), which the URL parser reads as a slash${contacted}`);
	// The parser drops tabs and line breaks silently.
	if ([...text].some((c) => c <= ' ' || c === '\x7f' || /\s/.test(c)))
		return refuse('holds a space or a control character');
	if (!url) return refuse('is not an http:// or https:// address of the Voice AI API');
	if (url.username || url.password)
		return refuse(
			`holds a user name or password before the host${contacted}; the key travels only in a header`,
		);
	if (/[?#]/.test(text) || url.search || url.hash)
		return refuse(
			'holds a query (?) or a fragment (#): every request would go to that one address',
		);
	const mapped = destinationProblem(text, url);
	if (mapped) return refuse(mapped);
	const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
	return { ok: true as const, url: { origin: url.origin, hostname: url.hostname, base } };
}
