import { FormData, request } from 'undici';

import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox';

export interface Reply<T = any> {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	text: string;
}

export interface CallOptions {
	key?: string;
	/** How the key travels: Authorization: Bearer (default) or X-API-Key. */
	form?: 'bearer' | 'x-api-key';
	json?: unknown;
	form_data?: FormData;
	raw?: { body: string | Buffer; contentType?: string };
	headers?: Record<string, string>;
}

export async function call(
	baseUrl: string,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<Reply> {
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	if (options.key !== undefined) {
		if (options.form === 'x-api-key') headers['x-api-key'] = options.key;
		else headers.authorization = `Bearer ${options.key}`;
	}
	let body: string | Buffer | FormData | undefined;
	if (options.json !== undefined) {
		headers['content-type'] = 'application/json';
		body = JSON.stringify(options.json);
	} else if (options.form_data) {
		body = options.form_data;
	} else if (options.raw) {
		if (options.raw.contentType) headers['content-type'] = options.raw.contentType;
		body = options.raw.body;
	}
	const res = await request(`${baseUrl}${path}`, { method: method as 'GET', headers, body });
	const text = await res.body.text();
	let parsed: unknown = text;
	if (String(res.headers['content-type'] ?? '').startsWith('application/json') && text !== '')
		parsed = JSON.parse(text);
	return { status: res.statusCode, headers: res.headers, body: parsed, text };
}

/** A started sandbox with helpers bound to it: `api` for the public API as org 0 (or another key), `admin`. */
export class Harness {
	private constructor(readonly sandbox: Sandbox) {}

	static async start(options: SandboxOptions = {}): Promise<Harness> {
		return new Harness(await startSandbox({ port: 0, ...options }));
	}

	get baseUrl(): string {
		return this.sandbox.baseUrl;
	}
	get acmeKey(): string {
		return this.sandbox.orgs[0].apiKey;
	}
	get globexKey(): string {
		return this.sandbox.orgs[1].apiKey;
	}

	api(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
		return call(this.baseUrl, method, path, { ...options, key: options.key ?? this.acmeKey });
	}

	admin(method: string, path: string, json?: unknown): Promise<Reply> {
		return call(this.baseUrl, method, `/__sandbox${path}`, {
			headers: { 'x-sandbox-admin': this.sandbox.adminToken },
			...(json !== undefined ? { json } : {}),
		});
	}

	close(): Promise<void> {
		return this.sandbox.close();
	}
}

export function expectError(reply: Reply, status: number, code: string, field?: string): void {
	expect(reply.status).toBe(status);
	expect(String(reply.headers['content-type'])).toMatch(/^application\/json/);
	const expected: Record<string, unknown> = { status, code, message: expect.any(String) };
	if (field !== undefined) expected.field = field;
	expect(reply.body).toEqual({ error: expected });
}

export const PNG_BYTES = Buffer.concat([
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	Buffer.from(
		'0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4ea0000000049454e44ae426082',
		'hex',
	),
]);
export const JPEG_BYTES = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
export const SVG_TEXT =
	'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>\n';

export function until<T>(
	probe: () => Promise<T | undefined>,
	what: string,
	limitMs = 15_000,
): Promise<T> {
	const deadline = Date.now() + limitMs;
	return (async () => {
		for (;;) {
			const value = await probe();
			if (value !== undefined) return value;
			if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	})();
}
