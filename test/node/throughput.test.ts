/**
 * Issue 6 behaviour: bounded concurrency with input order and pairing kept, 429 handling with
 * Retry-After through n8n-workflow's sleep, retries only where repeating cannot duplicate an effect,
 * and options that turn retries off. No timing assertions: counts and states only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../../harness/engine';
import { imageItem } from '../../harness/images';
import { agentCreate } from '../../harness/parameters';
import { parseRetryAfter } from '../../nodes/VoiceAi/transport/pacing';
import { PNG, SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

/** Agent Create of one agent (a write that may not be repeated after a 5xx or a timeout). */
const createAgent = (agentName: string, phoneNumber: string, options: INodeParameters = {}) =>
	fx.run(agentCreate(agentName, phoneNumber, { options }));
/** A fault on the first request of Agent Create. */
const faultCreate = async (kind: string) =>
	await fx.fault({ kind, method: 'POST', path: '/callback/standardCampaign', times: 1 });
const listNames = (options: INodeParameters = {}) =>
	fx.run({ resource: 'contact', operation: 'getListNames', returnAll: true, options });
/** SIP Get of each item's `phone`, `concurrency` at a time. */
const getSipOf = (
	items: InputItem[],
	concurrency: number,
	run: { continueOnFail?: boolean; credentials?: ICredentialDataDecryptedObject } = {},
) =>
	fx.run(
		{
			resource: 'sip',
			operation: 'get',
			phoneNumber: '={{ $json.phone }}',
			options: { concurrency },
		},
		{ items, ...run },
	);
const getSip = (options: INodeParameters) =>
	fx.run({ resource: 'sip', operation: 'get', phoneNumber: '+14155550101', options });
/** The statuses the sandbox answered, in order. */
const statuses = async () => (await fx.requests()).map((request) => request.status);
/** How often the sandbox's one fault struck. */
const faultHits = async () => (await fx.admin<Array<{ hits: number }>>('GET', '/faults'))[0].hits;
const agentNames = async () =>
	(await fx.state<{ agents: Array<{ agentName: string }> }>()).agents.map(
		(agent) => agent.agentName,
	);
const paired = (items: unknown[]) => items.map((_, index) => ({ item: index }));

const phones = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ json: { phone: `+1415555${String(1000 + i)}` } }));

/**
 * Answers GET /sip/{number} with { phone_number }, holding every answer until `width` requests are
 * waiting (or every request of the run has arrived), then answering them in reverse order of arrival.
 * If the node sent fewer at once, answers still go out after a safety delay and maxInFlight shows it.
 */
function barrierServer(width: number, total: number) {
	let server: Server;
	let inFlight = 0;
	let received = 0;
	const stats = { maxInFlight: 0, url: '' };
	let held: Array<() => void> = [];
	const flush = () => {
		const batch = held.reverse();
		held = [];
		for (const answer of batch) answer();
	};
	let safety: NodeJS.Timeout | undefined;
	return {
		stats,
		async start() {
			server = createServer((req, res) => {
				received++;
				inFlight++;
				stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
				const phone = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
				held.push(() => {
					inFlight--;
					res.writeHead(200, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ phone_number: phone }));
				});
				clearTimeout(safety);
				if (held.length >= width || received === total) flush();
				else safety = setTimeout(flush, 2000);
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			stats.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		},
		async stop() {
			clearTimeout(safety);
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe('concurrency', () => {
	it.each([1, 4, 10])(
		'sends at most %i requests at once, and uses that many; output follows input order',
		async (concurrency) => {
			const items = phones(23);
			const barrier = barrierServer(concurrency, items.length);
			await barrier.start();
			try {
				const result = await getSipOf(items, concurrency, {
					credentials: { baseUrl: barrier.stats.url, apiKey: 'ct_barrier_test' },
				});
				expect(result.error).toBeUndefined();
				expect(barrier.stats.maxInFlight).toBe(concurrency);
				expect(result.items.map((item) => item.json.phone_number)).toEqual(
					items.map((item) => item.json.phone),
				);
				expect(result.items.map((item) => item.pairedItem)).toEqual(paired(items));
			} finally {
				await barrier.stop();
			}
		},
	);

	it('continueOnFail yields one error item per failed input, in place, with concurrency', async () => {
		const items = [
			{ json: { phone: '+14155550101' } },
			{ json: { phone: '+19995550001' } },
			{ json: { phone: 'bad' } },
			{ json: { phone: '+14155550102' } },
			{ json: { phone: '+19995550002' } },
			{ json: { phone: '+14155550103' } },
		];
		await fx.admin('PUT', '/config', { latencyMs: 20 });
		const result = await getSipOf(items, 4, { continueOnFail: true });
		expect(result.items).toHaveLength(items.length);
		expect(result.items.map((item) => item.pairedItem)).toEqual(paired(items));
		expect(
			result.items.map((item) =>
				item.json.error ? `error:${item.json.httpCode ?? 'input'}` : item.json.phone_number,
			),
		).toEqual([
			'+14155550101',
			'error:404',
			'error:input',
			'+14155550102',
			'error:404',
			'+14155550103',
		]);
	});

	it('without continueOnFail the first failing item stops the run and is the one reported', async () => {
		const items = [
			{ json: { phone: '+14155550101' } },
			{ json: { phone: '+19995550003' } },
			{ json: { phone: '+14155550102' } },
		];
		const result = await getSipOf(items, 3);
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.context?.itemIndex).toBe(1);
	});
});

describe('429 and Retry-After', () => {
	it('a burst of creates against the rate limit loses and duplicates nothing', async () => {
		const count = 30;
		await fx.admin('PUT', '/config', { rateLimit: 10 });
		const items = Array.from({ length: count }, (_, i) => ({
			json: { name: `Burst ${i}`, phone: `+1415556${String(1000 + i)}` },
		}));
		const result = await fx.run(
			{
				resource: 'agent',
				operation: 'create',
				phoneNumber: '={{ $json.phone }}',
				agentName: '={{ $json.name }}',
				task: 'Call back',
				selectedVoice: 'june',
				options: { concurrency: 10 },
			},
			{ items },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.agentName)).toEqual(
			items.map((item) => item.json.name),
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual(paired(items));

		const created = (await agentNames()).filter((name) => name.startsWith('Burst '));
		expect(created.sort()).toEqual(items.map((item) => item.json.name).sort());
		const posts = (await fx.requests()).filter((request) => request.method === 'POST');
		expect(posts.filter((request) => request.status === 201)).toHaveLength(count);
		expect(posts.filter((request) => request.status === 429).length).toBeGreaterThan(0);
	}, 60_000);

	it('retries after a 429 that has no Retry-After header (backoff)', async () => {
		await fx.fault({ kind: 'rate-limit-no-retry-after', path: '/contacts/list-names', times: 1 });
		const result = await listNames();
		expect(result.error).toBeUndefined();
		expect(await statuses()).toEqual([429, 200]);
	});

	it('a create limited by 429 is repeated: the service did nothing', async () => {
		await faultCreate('rate-limit');
		const result = await createAgent('After 429', '+14155550177');
		expect(result.error).toBeUndefined();
		expect(await statuses()).toEqual([429, 201]);
	});

	it('Retry on Rate Limit off: one request, a 429 error', async () => {
		await fx.fault({ kind: 'rate-limit', path: '/contacts/list-names', times: 1 });
		const result = await listNames({ retryOnRateLimit: false });
		expect(result.error?.httpCode).toBe('429');
		expect(await fx.requests()).toHaveLength(1);
	});

	it('Max Attempts bounds the retries', async () => {
		await fx.fault({ kind: 'rate-limit', path: '/contacts/list-names', times: 5 });
		const result = await listNames({ maxAttempts: 2, maxWaitSeconds: 0 });
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.message).toMatch(/after 2 attempts/);
		expect(await fx.requests()).toHaveLength(2);
	});

	it('reads Retry-After as seconds or as an HTTP date', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter('0.5', now)).toBe(500);
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
	});
});

describe('5xx, timeouts and dropped connections', () => {
	it('reads are retried after 5xx', async () => {
		await fx.fault({ kind: 'status-503', path: '/sip/*', times: 2 });
		const result = await getSip({ maxWaitSeconds: 0 });
		expect(result.error).toBeUndefined();
		expect(await statuses()).toEqual([503, 503, 200]);
	});

	it('a create that got a 5xx is never repeated, and the message says to check', async () => {
		await faultCreate('status-500');
		const result = await createAgent('Once only', '+14155550178');
		expect(result.error?.httpCode).toBe('500');
		expect(result.error?.description).toMatch(/may have been created.*Get Many.*not repeated/);
		expect((await fx.requests()).filter((request) => request.method === 'POST')).toHaveLength(1);
	});

	it('a create whose connection dropped is never repeated', async () => {
		await faultCreate('reset');
		const result = await createAgent('Reset once', '+14155550179');
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.description).toMatch(/may have been created/);
		expect(await agentNames()).not.toContain('Reset once');
		const retried = await fx.run({ resource: 'agent', operation: 'getAll', returnAll: true });
		expect(retried.items.some((item) => item.json.agentName === 'Reset once')).toBe(false);
	});

	it('a create that timed out is never repeated', async () => {
		await faultCreate('timeout');
		const result = await createAgent('Slow once', '+14155550180', { timeoutSeconds: 1 });
		expect(result.error?.message).toMatch(/did not answer in time/);
		expect(await faultHits()).toBe(1);
	});

	it('a read that timed out is repeated', async () => {
		await fx.fault({ kind: 'timeout', path: '/contacts/list-names', times: 1 });
		const result = await listNames({ timeoutSeconds: 1, maxWaitSeconds: 0 });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(await faultHits()).toBe(1);
	});

	it('a chatbot update (sets a state) is repeated after a 502, with its images intact', async () => {
		await fx.fault({ kind: 'status-502', method: 'PATCH', path: '/chatbot/*', times: 1 });
		const result = await fx.run(
			{
				resource: 'chatbot',
				operation: 'update',
				chatbotId: 'cb_acme_support',
				updateFields: { chatbot_title: 'Retried', chatbotImageProperty: 'data' },
				options: { maxWaitSeconds: 0 },
			},
			{ items: [imageItem(PNG, 'retry.png')] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.chatbot_title).toBe('Retried');
		expect(await statuses()).toEqual([502, 200]);
		const state = await fx.state<{ uploads: Array<{ filename: string; size: number }> }>();
		expect(
			state.uploads
				.filter((upload) => upload.filename === 'retry.png')
				.map((upload) => upload.size),
		).toEqual([PNG.length]);
	});

	it('a malformed JSON answer to a read is retried', async () => {
		await fx.fault({ kind: 'malformed-json', path: '/agency/*', times: 1 });
		const result = await fx.run({
			resource: 'trustProduct',
			operation: 'getAll',
			returnAll: true,
			options: { maxWaitSeconds: 0 },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
	});

	it('Retry on Server Errors off: one request, the 5xx error', async () => {
		await fx.fault({ kind: 'status-503', path: '/sip/*', times: 1 });
		const result = await getSip({ retryOnServerErrors: false });
		expect(result.error?.httpCode).toBe('503');
		expect(await fx.requests()).toHaveLength(1);
	});
});
