import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';

import { Harness, until } from '../../harness/sandboxHttp';
import { jsonBody, type Loopback, startLoopback, statusesInTurn } from '../../harness/loopback';

async function closedPortUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}/gone`;
}

describe('sandbox webhook delivery', () => {
	let h: Harness;
	let receiver: Loopback | undefined;
	beforeEach(async () => {
		h = await Harness.start({ deliveryRetry: { attempts: 4, baseDelayMs: 5 } });
	});
	afterEach(async () => {
		await h.close();
		await receiver?.close();
		receiver = undefined;
	});

	const settled = (conversationId: string) =>
		until(async () => {
			const list = (await h.admin('GET', `/deliveries?conversationId=${conversationId}`)).body;
			return list.every((d: { status: string }) => d.status !== 'pending') ? list : undefined;
		}, 'deliveries to settle');

	it('delivers an agent conversation to the account webhook, retrying failures with the same conversation id', async () => {
		receiver = await startLoopback(statusesInTurn([500, 503]));
		await h.api('POST', '/webhook/insert-webhook', {
			json: { webhook: `${receiver.url}/hook?token=t0k` },
		});
		const started = await h.admin('POST', '/orgs/org_acme/conversations', {
			agentId: 'agent_acme_reception',
			variables: { name: 'Ann', slot: 'Tuesday 10:00', confirmed: true },
		});
		expect(started.status).toBe(201);
		expect(started.body.conversationId).toMatch(/^conv_/);
		expect(started.body.deliveries).toHaveLength(1);

		const [delivery] = await settled(started.body.conversationId);
		expect(delivery).toMatchObject({
			conversationId: started.body.conversationId,
			target: 'account',
			url: `${receiver.url}/hook?token=t0k`,
			status: 'delivered',
			attempts: 3,
			responseCodes: [500, 503, 200],
		});
		expect(receiver.requests).toHaveLength(3);
		receiver.requests.forEach((hit, i) => {
			expect(hit.url).toBe('/hook?token=t0k');
			expect(hit.headers['content-type']).toBe('application/json');
			expect(hit.headers['x-voiceai-delivery']).toBe(delivery.id);
			expect(hit.headers['x-voiceai-attempt']).toBe(String(i + 1));
			expect(jsonBody(hit)).toEqual({
				event: 'conversation.completed',
				conversation_id: started.body.conversationId,
				source: 'account_webhook',
				agent_id: 'agent_acme_reception',
				chatbot_id: null,
				completed_at: expect.any(String),
				variables: { name: 'Ann', slot: 'Tuesday 10:00', confirmed: true },
			});
		});
	});

	it('gives up after the bounded number of attempts', async () => {
		receiver = await startLoopback(statusesInTurn([500, 500, 500, 500, 500]));
		await h.api('POST', '/webhook/insert-webhook', { json: { webhook: receiver.url } });
		const started = await h.admin('POST', '/orgs/org_acme/conversations', { variables: { a: 1 } });
		const [delivery] = await settled(started.body.conversationId);
		expect(delivery).toMatchObject({
			status: 'failed',
			attempts: 4,
			responseCodes: [500, 500, 500, 500],
		});
		expect(receiver.requests).toHaveLength(4);
	});

	it('retries network errors and records them without a response code', async () => {
		const url = await closedPortUrl();
		await h.api('POST', '/webhook/insert-webhook', { json: { webhook: url } });
		const started = await h.admin('POST', '/orgs/org_acme/conversations', { variables: {} });
		const [delivery] = await settled(started.body.conversationId);
		expect(delivery).toMatchObject({
			status: 'failed',
			attempts: 4,
			responseCodes: [null, null, null, null],
		});
		expect(delivery.errors).toEqual([
			'ECONNREFUSED',
			'ECONNREFUSED',
			'ECONNREFUSED',
			'ECONNREFUSED',
		]);
	});

	it('gives up on an attempt not answered in time: closes its connection, then retries with the same delivery id', async () => {
		await h.close();
		h = await Harness.start({
			deliveryRetry: { attempts: 2, baseDelayMs: 5 },
			deliveryTimeoutMs: 300,
		});
		// The first attempt is answered only once the deliverer has closed its connection.
		const attempts: Array<{ attempt: string; closedBeforeAnswer: boolean }> = [];
		const server = createHttpServer((req, res) => {
			req.resume();
			const attempt = String(req.headers['x-voiceai-attempt']);
			if (attempt !== '1') {
				attempts.push({ attempt, closedBeforeAnswer: false });
				res.end('ok');
				return;
			}
			res.once('close', () => {
				attempts.push({ attempt, closedBeforeAnswer: !res.writableFinished });
				res.end('late');
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		try {
			await h.api('POST', '/webhook/insert-webhook', {
				json: { webhook: `http://127.0.0.1:${port}/hook` },
			});
			const started = await h.admin('POST', '/orgs/org_acme/conversations', { variables: {} });
			const [delivery] = await settled(started.body.conversationId);
			expect(delivery).toMatchObject({
				status: 'delivered',
				attempts: 2,
				responseCodes: [null, 200],
				errors: ['UND_ERR_HEADERS_TIMEOUT', null],
			});
			expect(attempts).toEqual([
				{ attempt: '1', closedBeforeAnswer: true },
				{ attempt: '2', closedBeforeAnswer: false },
			]);
		} finally {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it('delivers a chatbot conversation to the chatbot webhook_url and to the account webhook', async () => {
		receiver = await startLoopback(statusesInTurn([]));
		await h.api('POST', '/webhook/insert-webhook', {
			json: { webhook: `${receiver.url}/account` },
		});
		const set = await h.admin('PUT', '/orgs/org_acme/chatbots/cb_acme_booking/webhook-url', {
			webhook_url: `${receiver.url}/bot`,
		});
		expect(set.body.webhook_url).toBe(`${receiver.url}/bot`);
		const started = await h.admin('POST', '/orgs/org_acme/conversations', {
			chatbotId: 'cb_acme_booking',
			conversationId: 'conv_fixed_1',
			variables: { email: 'ann@example.com' },
		});
		expect(started.body.conversationId).toBe('conv_fixed_1');
		const deliveries = await settled('conv_fixed_1');
		expect(
			deliveries.map((d: { target: string; status: string }) => `${d.target}:${d.status}`),
		).toEqual(['chatbot:delivered', 'account:delivered']);
		const byPath = Object.fromEntries(receiver.requests.map((hit) => [hit.url, jsonBody(hit)]));
		expect(byPath['/bot']).toMatchObject({
			source: 'chatbot',
			chatbot_id: 'cb_acme_booking',
			agent_id: null,
			conversation_id: 'conv_fixed_1',
		});
		expect(byPath['/account']).toMatchObject({
			source: 'account_webhook',
			chatbot_id: 'cb_acme_booking',
		});
	});

	it("delivers nothing when no webhook is registered, and keeps each organization's log apart", async () => {
		const started = await h.admin('POST', '/orgs/org_globex/conversations', {
			agentId: 'agent_globex_sales',
			variables: {},
		});
		expect(started.body.deliveries).toEqual([]);
		expect((await h.admin('GET', '/deliveries?org=org_globex')).body).toEqual([]);
	});

	it('refuses a malformed conversation', async () => {
		const both = await h.admin('POST', '/orgs/org_acme/conversations', {
			agentId: 'agent_acme_reception',
			chatbotId: 'cb_acme_support',
		});
		expect(both.status).toBe(400);
		const badVars = await h.admin('POST', '/orgs/org_acme/conversations', { variables: ['a'] });
		expect(badVars.body.error.field).toBe('variables');
		expect((await h.admin('POST', '/orgs/org_nobody/conversations', {})).status).toBe(404);
	});
});
