import { request } from 'undici';

import { expectError } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

describe('sandbox rate limiting', () => {
	const h = startedSandbox({ rateLimit: 1 });

	it('answers 429 with Retry-After past the per-key limit, without touching other keys', async () => {
		const burst = await Promise.all(
			Array.from({ length: 6 }, () => h().api('GET', '/contacts/list-names')),
		);
		const limited = burst.filter((reply) => reply.status === 429);
		expect(limited.length).toBeGreaterThan(0);
		for (const reply of limited) {
			expectError(reply, 429, 'rate_limited');
			expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
			expect(reply.headers['x-ratelimit-limit']).toBe('1');
		}
		expect(burst.filter((reply) => reply.status === 200).length).toBeGreaterThan(0);
		// Globex has its own window.
		expect((await h().api('GET', '/contacts/list-names', { key: h().globexKey })).status).toBe(200);
		const log = await h().admin('GET', '/requests?org=org_acme');
		expect(log.body.filter((entry: { status: number }) => entry.status === 429)).toHaveLength(
			limited.length,
		);
	});

	it('can be turned off and on through the admin API', async () => {
		expect((await h().admin('PUT', '/config', { rateLimit: 0, latencyMs: 0 })).body).toEqual({
			rateLimit: 0,
			latencyMs: 0,
			shapes: 'documented',
		});
		const burst = await Promise.all(
			Array.from({ length: 6 }, () => h().api('GET', '/contacts/list-names')),
		);
		expect(burst.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200]);
		expect((await h().admin('PUT', '/config', { rateLimit: -1 })).body.error.field).toBe(
			'rateLimit',
		);
	});
});

describe('sandbox fault injection', () => {
	const h = startedSandbox();
	afterEach(() => h().admin('DELETE', '/faults'));

	const inject = (fault: Record<string, unknown>) =>
		h().admin('POST', '/faults', { path: '/contacts/list-names', times: 1, ...fault });

	it.each([
		['status-500', 500, 'internal_error'],
		['status-502', 502, 'bad_gateway'],
		['status-503', 503, 'service_unavailable'],
		['rate-limit', 429, 'rate_limited'],
		['rate-limit-no-retry-after', 429, 'rate_limited'],
	])('%s answers %i with the error body, once', async (kind, status, code) => {
		expect((await inject({ kind })).status).toBe(201);
		const reply = await h().api('GET', '/contacts/list-names');
		expectError(reply, status, code);
		if (kind === 'rate-limit') expect(reply.headers['retry-after']).toBe('1');
		if (kind === 'rate-limit-no-retry-after') expect(reply.headers['retry-after']).toBeUndefined();
		expect((await h().api('GET', '/contacts/list-names')).status).toBe(200);
	});

	it('matches by method, path prefix and organization', async () => {
		await h().admin('POST', '/faults', {
			method: 'post',
			path: '/sip/*',
			kind: 'status-503',
			org: 'org_acme',
		});
		const acme = await h().api('POST', '/sip/detach2', {
			json: { phone_number: '+14155550101', directions: [{ type: 'inbound' }] },
		});
		expect(acme.status).toBe(503);
		expect((await h().api('GET', '/sip/%2B14155550101')).status).toBe(200);
		const globex = await h().api('POST', '/sip/detach2', {
			key: h().globexKey,
			json: { phone_number: '+14155550999', directions: [{ type: 'inbound' }] },
		});
		expect(globex.status).toBe(404);
		expect((await h().admin('GET', '/faults')).body[0]).toMatchObject({ hits: 1, remaining: null });
	});

	it('malformed-json answers 200 with a body that does not parse', async () => {
		await inject({ kind: 'malformed-json' });
		const res = await request(`${h().baseUrl}/contacts/list-names`, {
			headers: { 'x-api-key': h().acmeKey },
		});
		expect(res.statusCode).toBe(200);
		expect(res.headers['content-type']).toMatch(/^application\/json/);
		const text = await res.body.text();
		expect(() => JSON.parse(text)).toThrow();
	});

	it('html answers an HTML page', async () => {
		await inject({ kind: 'html', status: 502 });
		const res = await request(`${h().baseUrl}/contacts/list-names`, {
			headers: { 'x-api-key': h().acmeKey },
		});
		expect(res.statusCode).toBe(502);
		expect(res.headers['content-type']).toMatch(/^text\/html/);
		expect(await res.body.text()).toMatch(/^<!DOCTYPE html>/);
	});

	it('huge answers a 50 MB JSON body', async () => {
		await inject({ kind: 'huge' });
		const res = await request(`${h().baseUrl}/contacts/list-names`, {
			headers: { 'x-api-key': h().acmeKey },
		});
		expect(res.statusCode).toBe(200);
		expect(Number(res.headers['content-length'])).toBeGreaterThan(49 * 1024 * 1024);
		let bytes = 0;
		for await (const chunk of res.body) bytes += (chunk as Buffer).length;
		expect(bytes).toBe(Number(res.headers['content-length']));
	});

	it('reset drops the connection without an answer', async () => {
		await inject({ kind: 'reset' });
		await expect(
			request(`${h().baseUrl}/contacts/list-names`, { headers: { 'x-api-key': h().acmeKey } }),
		).rejects.toThrow();
	});

	it('timeout never answers; the client gives up', async () => {
		await inject({ kind: 'timeout' });
		await expect(
			request(`${h().baseUrl}/contacts/list-names`, {
				headers: { 'x-api-key': h().acmeKey },
				headersTimeout: 300,
			}),
		).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
	});

	it('refuses unknown fault kinds', async () => {
		expect((await h().admin('POST', '/faults', { kind: 'explode' })).body.error.field).toBe('kind');
	});
});
