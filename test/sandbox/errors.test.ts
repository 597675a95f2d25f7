import { call, expectError } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

describe('sandbox error statuses and the one error body', () => {
	const h = startedSandbox();
	afterEach(() => h().admin('DELETE', '/faults'));

	it('200 and 201 carry JSON', async () => {
		expect((await h().api('GET', '/contacts/list-names')).status).toBe(200);
		const created = await h().api('POST', '/callback/standardCampaign', {
			json: { phoneNumber: '+14155550160', agentName: 'Errors', task: 'x', selectedVoice: 'nat' },
		});
		expect(created.status).toBe(201);
	});

	it('400 for malformed JSON, a body that is not an object, and an unknown query parameter', async () => {
		const badBodies = [
			{ raw: { body: '{"webhook": ', contentType: 'application/json' } },
			{ json: ['https://x.example'] },
			{ json: 'https://x.example' },
		];
		for (const body of badBodies)
			expectError(await h().api('POST', '/webhook/insert-webhook', body), 400, 'bad_request');
		expectError(await h().api('GET', '/contacts/list-names?page=2'), 400, 'invalid_field', 'page');
	});

	it('400 for prototype keys, which are never merged into anything', async () => {
		const reply = await h().api('POST', '/webhook/insert-webhook', {
			raw: {
				body: '{"webhook":"https://x.example","__proto__":{"polluted":true}}',
				contentType: 'application/json',
			},
		});
		expectError(reply, 400, 'invalid_field', '__proto__');
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it('400 for control characters in text', async () => {
		const reply = await h().api('POST', '/callback/standardCampaign', {
			json: {
				phoneNumber: '+14155550161',
				agentName: 'Bad\u0000Name',
				task: 'x',
				selectedVoice: 'nat',
			},
		});
		expectError(reply, 400, 'invalid_field', 'agentName');
	});

	it('400, not 500, for a malformed percent-encoding or a body that does not decompress', async () => {
		expectError(await h().api('GET', '/sip/%E0%A4%A'), 400, 'bad_request');
		const gzip = await h().api('POST', '/webhook/insert-webhook', {
			raw: { body: 'not gzip at all', contentType: 'application/json' },
			headers: { 'content-encoding': 'gzip' },
		});
		expectError(gzip, 400, 'bad_request');
	});

	it('401 before anything else, with the same body shape', async () => {
		expectError(await call(h().baseUrl, 'GET', '/no/such/path'), 401, 'unauthorized');
	});

	it('404 for an endpoint that does not exist or a method it does not take', async () => {
		expectError(await h().api('GET', '/chatbot/cb_acme_support'), 404, 'not_found');
		expectError(await h().api('DELETE', '/callback/standardCampaign'), 404, 'not_found');
		expectError(await h().api('GET', '/contacts/list-names/'), 404, 'not_found');
		expectError(await h().api('GET', '/Contacts/list-names'), 404, 'not_found');
		expectError(await h().api('OPTIONS', '/contacts/list-names'), 404, 'not_found');
	});

	it('413 for a JSON body over 1 MiB', async () => {
		const reply = await h().api('POST', '/webhook/insert-webhook', {
			json: { webhook: `https://x.example/${'a'.repeat(1024 * 1024)}` },
		});
		expectError(reply, 413, 'payload_too_large');
	});

	it('415 for a JSON endpoint sent another content type', async () => {
		const reply = await h().api('POST', '/webhook/insert-webhook', {
			raw: { body: 'webhook=https://x.example', contentType: 'application/x-www-form-urlencoded' },
		});
		expectError(reply, 415, 'unsupported_media_type');
	});

	it('500 says nothing about the inside', async () => {
		await h().admin('POST', '/faults', {
			path: '/contacts/list-names',
			kind: 'status-500',
			times: 1,
		});
		const reply = await h().api('GET', '/contacts/list-names');
		expectError(reply, 500, 'internal_error');
		expect(reply.body.error.message).toBe('internal server error');
		expect((await h().api('GET', '/contacts/list-names')).status).toBe(200);
	});
});
