// Reading the text of HTTP, in one place for the action node and the trigger: headers as Node's http
// module hands them over, percent-encoded text, and http(s) URLs as WHATWG `URL` (what sends them) reads them.

/** A header's value; a repeated header comes as a list, of which the first counts. */
export function headerValue(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
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
