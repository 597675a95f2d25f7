import type { IDataObject } from 'n8n-workflow';

import { HALF_CHARACTER, LONE_SURROGATE } from '../../../credentials/voiceAiBaseUrl';

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

export const formDecoded = (text: string) => decoded(text.replaceAll('+', ' '));

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

const MAX_ANSWER_MIB = 25;
const MIB = 1024 * 1024;
const tooLarge = (size: string) => ({
	tooLarge: `Voice AI answered with ${size}, too large for the node (limit ${MAX_ANSWER_MIB} MiB); the transfer was stopped`,
});
const MAX_ERROR_BYTES = 64 * 1024;

export interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** A stream (`encoding: 'stream'`), or text or JSON from other helpers. */
	body: unknown;
}

export type Answer = { text: string } | { value: unknown } | { tooLarge: string };

// A redirect is read only to close it: n8n's wrapper closes the stream under it once reading starts.
// Stream events, not `for await`: its async iterator cost more CPU than the rest of the transport.
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
		// A promise settles once: the 'close' after 'end' or stop() changes nothing.
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

/** For answers whose shape the spec does not give. */
export function listIn(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (body === null || typeof body !== 'object') return undefined;
	const arrays = Object.values(body).filter((value) => Array.isArray(value));
	return arrays.length === 1 ? (arrays[0] as unknown[]) : undefined;
}
