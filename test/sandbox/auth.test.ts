import { FormData } from 'undici';

import { call, expectError } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

describe('sandbox authentication', () => {
	const h = startedSandbox();

	it('accepts the key as Authorization: Bearer and as X-API-Key', async () => {
		const bearer = await h().api('GET', '/contacts/list-names', { form: 'bearer' });
		const header = await h().api('GET', '/contacts/list-names', { form: 'x-api-key' });
		expect(bearer.status).toBe(200);
		expect(header.status).toBe(200);
		expect(header.body).toEqual(bearer.body);
		const log = await h().admin('GET', '/requests?org=org_acme');
		expect(log.body.map((entry: { auth: string }) => entry.auth)).toEqual(['bearer', 'x-api-key']);
	});

	it('accepts both headers together only when they hold the same key', async () => {
		const same = await call(h().baseUrl, 'GET', '/contacts/list-names', {
			headers: { authorization: `Bearer ${h().acmeKey}`, 'x-api-key': h().acmeKey },
		});
		expect(same.status).toBe(200);
		const different = await call(h().baseUrl, 'GET', '/contacts/list-names', {
			headers: { authorization: `Bearer ${h().acmeKey}`, 'x-api-key': h().globexKey },
		});
		expectError(different, 401, 'unauthorized');
	});

	it.each([
		['no key at all', {}],
		['an empty bearer', { authorization: 'Bearer ' }],
		['a Basic scheme', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
		[
			'a key without the ct_ prefix',
			{ 'x-api-key': 'sk_0123456789012345678901234567890123456789' },
		],
		['a key of the wrong length', { 'x-api-key': 'ct_short' }],
		['a well-formed key that was never issued', { 'x-api-key': `ct_${'A'.repeat(40)}` }],
	])('answers 401 for %s', async (_label, headers) => {
		const reply = await call(h().baseUrl, 'GET', '/contacts/list-names', { headers });
		expectError(reply, 401, 'unauthorized');
		expect(reply.headers['www-authenticate']).toBe('Bearer');
	});

	it('revocation takes effect on the next request', async () => {
		const created = await h().admin('POST', '/orgs/org_acme/keys', { name: 'rotation' });
		expect(created.status).toBe(201);
		expect(created.body.apiKey).toMatch(/^ct_[A-Za-z0-9]{40}$/);
		const key: string = created.body.apiKey;
		expect((await h().api('GET', '/callback/standardCampaign', { key })).status).toBe(200);
		expect((await h().admin('POST', `/keys/${created.body.id}/revoke`)).body.revoked).toBe(true);
		expectError(await h().api('GET', '/callback/standardCampaign', { key }), 401, 'unauthorized');
		expectError(
			await h().api('GET', '/callback/standardCampaign', { key, form: 'x-api-key' }),
			401,
			'unauthorized',
		);
		// The other keys of the organization keep working.
		expect((await h().api('GET', '/callback/standardCampaign')).status).toBe(200);
	});

	it('shows the full key once: afterwards only a masked prefix, and only hashes are kept', async () => {
		const created = await h().admin('POST', '/orgs/org_globex/keys', {});
		const listed = await h().admin('GET', '/orgs/org_globex/keys');
		const entry = listed.body.find((k: { id: string }) => k.id === created.body.id);
		expect(entry.prefix).toBe(created.body.prefix);
		expect(entry.prefix.startsWith(created.body.apiKey.slice(0, 7))).toBe(true);
		expect(entry.prefix).toContain('*');
		expect(JSON.stringify(listed.body)).not.toContain(created.body.apiKey);
		expect(JSON.stringify(listed.body)).not.toContain(created.body.apiKey.slice(7));
	});

	it('refuses a key in the query string, marks it exposed and keeps it out of the request log', async () => {
		const created = await h().admin('POST', '/orgs/org_acme/keys', { name: 'leaky' });
		const key: string = created.body.apiKey;
		const reply = await call(h().baseUrl, 'GET', `/contacts/list-names?api_key=${key}`, {
			headers: { 'x-api-key': key },
		});
		expectError(reply, 401, 'unauthorized');
		expect(reply.text).not.toContain(key);
		const keys = await h().admin('GET', '/orgs/org_acme/keys');
		expect(keys.body.find((k: { id: string }) => k.id === created.body.id).exposed).toBe(true);
		const log = await h().admin('GET', '/requests');
		expect(JSON.stringify(log.body)).not.toContain(key);
		expect(log.body.at(-1)).toMatchObject({
			path: '/contacts/list-names',
			status: 401,
			query: { api_key: 'ct_[redacted]' },
		});
	});

	it('refuses a key-named query parameter even with a garbage value, and any key-shaped value', async () => {
		expectError(await h().api('GET', '/contacts/list-names?apiKey=whatever'), 401, 'unauthorized');
		expectError(
			await h().api('GET', `/contacts/list-names?q=${`ct_${'b'.repeat(40)}`}`),
			401,
			'unauthorized',
		);
	});

	it('refuses a known key inside a JSON body, at any depth', async () => {
		const reply = await h().api('POST', '/webhook/insert-webhook', {
			json: { webhook: `https://hooks.example/in?token=${h().acmeKey}` },
		});
		expectError(reply, 401, 'unauthorized');
		expect(reply.text).not.toContain(h().acmeKey);
		const state = await h().admin('GET', '/orgs/org_acme/state');
		expect(state.body.webhook).toBeNull();
	});

	it('refuses a known key inside a multipart text field', async () => {
		const form = new FormData();
		form.append('welcome_message', `Call us, our key is ${h().acmeKey}`);
		const reply = await h().api('PATCH', '/chatbot/cb_acme_support', { form_data: form });
		expectError(reply, 401, 'unauthorized');
		expect(reply.text).not.toContain(h().acmeKey);
	});

	it('guards the admin API with its own token', async () => {
		expectError(await call(h().baseUrl, 'GET', '/__sandbox/orgs'), 401, 'unauthorized');
		expectError(
			await call(h().baseUrl, 'GET', '/__sandbox/orgs', { headers: { 'x-sandbox-admin': 'nope' } }),
			401,
			'unauthorized',
		);
		// An API key is no admin token.
		expectError(
			await call(h().baseUrl, 'GET', '/__sandbox/orgs', { key: h().acmeKey }),
			401,
			'unauthorized',
		);
		expect((await h().admin('GET', '/orgs')).body).toEqual([
			{ id: 'org_acme', name: 'Acme Dental' },
			{ id: 'org_globex', name: 'Globex Telecom' },
		]);
	});
});
