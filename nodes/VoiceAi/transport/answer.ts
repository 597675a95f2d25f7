import type { IDataObject } from 'n8n-workflow';

import { HALF_CHARACTER, LONE_SURROGATE } from '../../../credentials/voiceAiBaseUrl';

// What HTTP carries, read for the action node and the trigger. URLs: credentials/voiceAiBaseUrl.ts.

/** A repeated header comes as a list, of which the first counts. */
export const headerValue = (value: string | string[] | undefined) =>
	Array.isArray(value) ? value[0] : value;

/** A byte-order mark is not part of the text (n8n 2.x drops it too). */
export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const shortened = (text: string, max: number) =>
	text.length > max ? `${text.slice(0, max - 3)}...` : text;

/** Text that is not valid percent-encoding stays as it is. */
export function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** As a form decodes it (`+` is a space). */
export const formDecoded = (text: string) => decoded(text.replaceAll('+', ' '));

/** The user info of a URL the parser refused: what stands before its authority's last `@`. */
export function refusedUserInfo(text: string): string | undefined {
	const authority = /^[^:]*:[/\\]*([^/\\?#]*)/.exec(text)?.[1] ?? '';
	const at = authority.lastIndexOf('@');
	return at > 0 ? authority.slice(0, at) : undefined;
}

/** An object as JSON or a form parser makes it: its prototype is an `Object.prototype` (any realm) or null. */
export function isPlainObject(value: unknown): value is IDataObject {
	if (value === null || typeof value !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as object | null;
	return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/** Sets `key` as an own field, also when it is `__proto__` (an assignment would set the prototype). */
export const setOwn = (to: object, key: string, value: unknown) =>
	Object.defineProperty(to, key, { value, writable: true, enumerable: true, configurable: true });

/** Even percent-encoded, within the 8 KB request line servers accept (not a 414 or 431). */
const MAX_PATH_VALUE = 512;

/** Why a value cannot be one path segment: run by the fields' validation and by the path builder. */
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

/** Larger answers are refused, the transfer stopped; of an error answer only the start is read. */
const MAX_ANSWER_MIB = 25;
const MIB = 1024 * 1024;
const tooLarge = (size: string) => ({
	tooLarge: `Voice AI answered with ${size}, too large for the node (limit ${MAX_ANSWER_MIB} MiB); the transfer was stopped`,
});
const MAX_ERROR_BYTES = 64 * 1024;

export interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** A stream (`encoding: 'stream'`); text or parsed JSON from other helpers. */
	body: unknown;
}

export type Answer = { text: string } | { value: unknown } | { tooLarge: string };

/**
 * Reads a 2xx up to MAX_ANSWER_MIB (past it, or a declared length past it, the connection is closed),
 * an error's first MAX_ERROR_BYTES, a redirect's not at all (undefined: its first chunk closes the
 * connection, since n8n's wrapper stream closes the one under it only once reading has started).
 * Stream events, not `for await`: the async iterator cost more CPU than the rest of the transport.
 */
export async function readAnswer(response: FullResponse): Promise<Answer | undefined> {
	const { body, statusCode: status } = response;
	const redirect = status >= 300 && status < 400;
	if (typeof (body as { pipe?: unknown } | null)?.pipe !== 'function') {
		if (redirect) return undefined;
		if (typeof body === 'string') return { text: body };
		return Buffer.isBuffer(body) ? { text: body.toString('utf8') } : { value: body };
	}
	const stream = body as NodeJS.ReadableStream & { destroy(): void };
	const truncate = status >= 300;
	const limit = redirect ? 0 : truncate ? MAX_ERROR_BYTES : MAX_ANSWER_MIB * MIB;
	const declared = Number(headerValue(response.headers['content-length']));
	const reading = new Promise<Answer>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		// Only the first resolve or reject counts; destroying again does nothing.
		const stop = (answer: Answer) => {
			resolve(answer);
			stream.destroy();
		};
		const text = () => ({
			text: withoutBom((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes)).toString()),
		});
		stream.on('data', (chunk: Buffer | string) => {
			const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			if (!truncate && declared > limit)
				return stop(tooLarge(`${(declared / MIB).toFixed(1)} MiB`));
			if (!truncate && bytes + data.length > limit)
				return stop(tooLarge(`more than ${MAX_ANSWER_MIB} MiB`));
			chunks.push(data.subarray(0, limit - bytes));
			bytes = Math.min(limit, bytes + data.length);
			if (truncate && bytes === limit) stop(text());
		});
		stream.on('end', () => resolve(text()));
		stream.on('error', reject);
		stream.on('close', () =>
			reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })),
		);
	});
	// A redirect is refused whatever its body: nothing to report if reading it fails.
	return redirect ? void reading.catch(() => undefined) : await reading;
}

/** The list of an answer the spec gives no shape: an array, or an object's one array field. */
export function listIn(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (body === null || typeof body !== 'object') return undefined;
	const arrays = Object.values(body).filter((value) => Array.isArray(value));
	return arrays.length === 1 ? (arrays[0] as unknown[]) : undefined;
}
