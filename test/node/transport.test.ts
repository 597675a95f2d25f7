/**
 * The transport against answers the sandbox has no reason to give (a loopback server answers as each
 * test says): writes answered 2xx with any body, empty answers, text error bodies, detach answered
 * "already detached", path values that would change the path, and a hard failure while other items
 * still have requests to make.
 */
import { inspect } from 'node:util';

import type { INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../../harness/engine';
import { runNode, testCredential } from '../../harness/engine';
import type { Handler, Loopback } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { sipUpdateWithLogin } from '../../harness/parameters';
import { TriggerWorkflow } from '../../harness/triggerWorkflow';
import { buildPath } from '../../nodes/VoiceAi/transport/request';
import { Secrets } from '../../nodes/VoiceAi/transport/secrets';

let service: Loopback;

beforeAll(async () => {
	service = await startLoopback();
});
afterAll(async () => await service?.close());
beforeEach(() => {
	service.requests.length = 0;
});

const run = async (
	parameters: INodeParameters,
	handler: Handler,
	options: { items?: InputItem[]; continueOnFail?: boolean } = {},
) => {
	service.handle(handler);
	return await runNode({
		parameters,
		credentials: { voiceAiApi: { baseUrl: service.url, apiKey: 'ct_transport_test_0123456789' } },
		...options,
	});
};

const text =
	(status: number, body: string, type = 'text/plain'): Handler =>
	(_, res) => {
		res.writeHead(status, body ? { 'Content-Type': type } : {});
		res.end(body);
	};

const sipUpdate = sipUpdateWithLogin('a long random password');
const sipDetach: INodeParameters = {
	resource: 'sip',
	operation: 'detach',
	phoneNumber: '+14155550101',
	directions: ['inbound', 'outbound'],
};
const webhookSet: INodeParameters = {
	resource: 'webhook',
	operation: 'set',
	whenTriggerHolds: 'takeOver',
	webhookUrl: 'https://crm.example.com/hook',
};
const listNames: INodeParameters = {
	resource: 'contact',
	operation: 'getListNames',
	returnAll: true,
};

describe('a write answered 2xx succeeded, whatever the body', () => {
	it.each([
		{
			what: 'SIP Update, 200 text',
			parameters: sipUpdate,
			answer: text(200, 'SIP configuration updated'),
			json: { success: true, status: 200, body: 'SIP configuration updated' },
		},
		{
			what: 'SIP Detach, 200 text',
			parameters: sipDetach,
			answer: text(200, 'Number detached.'),
			json: { success: true, status: 200, body: 'Number detached.' },
		},
		{
			what: 'SIP Detach, 200 HTML',
			parameters: sipDetach,
			answer: text(200, '<p>done</p>', 'text/html'),
			json: { success: true, status: 200, body: '<p>done</p>' },
		},
		{
			what: 'Webhook Set, 204 empty',
			parameters: webhookSet,
			answer: text(204, ''),
			json: { success: true, status: 204 },
		},
		{
			what: 'Webhook Set, 201 empty',
			parameters: webhookSet,
			answer: text(201, ''),
			json: { success: true, status: 201 },
		},
		{
			what: 'Webhook Set, 200 JSON',
			parameters: webhookSet,
			answer: ((_, res) => json(res, 200, { message: 'Webhook updated' })) as Handler,
			json: { message: 'Webhook updated' },
		},
	])(
		'$what: one request, an item that says what came back',
		async ({ parameters, answer, json: expected }) => {
			const result = await run(parameters, answer);
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json)).toEqual([expected]);
			expect(service.requests).toHaveLength(1);
		},
	);

	it('a list read answered with an empty 2xx lists nothing: no made-up record (issue 51)', async () => {
		const result = await run(listNames, text(200, ''));
		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([]);
	});

	it('a read answered 200 with text is still not a usable answer (it needs JSON)', async () => {
		const result = await run({ ...listNames, options: { maxAttempts: 1 } }, text(200, 'hello'));
		expect(result.error?.message).toMatch(/^Voice AI answered 200 with a body that is not JSON/);
	});
});

describe('SIP Detach when nothing is attached any more', () => {
	it('404, a number the organization does not have: an error naming it, not a success', async () => {
		const result = await run(sipDetach, (_, res) =>
			json(res, 404, {
				error: { status: 404, code: 'not_found', message: 'SIP number not found' },
			}),
		);
		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(result.error?.message).toContain('+14155550101');
	});

	// The spec shows no 409 for detach: the node reads GET /sip/{phone_number} before calling it success.
	const detachedNumber = { phone_number: '+14155550101', directions: [] };

	it('409, and GET shows nothing attached: success with a note saying what the read found', async () => {
		const result = await run(sipDetach, (_, res, req) =>
			req.method === 'GET'
				? json(res, 200, detachedNumber)
				: json(res, 409, {
						error: { status: 409, code: 'not_attached', message: 'SIP number is already detached' },
					}),
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			success: true,
			status: 409,
			phone_number: '+14155550101',
			directions: ['inbound', 'outbound'],
			attached: [],
		});
		expect(result.items[0].json.note).toMatch(
			/^Voice AI answered 409 \(SIP number is already detached\); GET \/sip\/\+14155550101 shows neither direction attached/,
		);
	});

	it('409, and the read fails too: an error, never success', async () => {
		const result = await run(sipDetach, (_, res) =>
			json(res, 409, { error: { status: 409, message: 'SIP number is already detached' } }),
		);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(
			/^SIP Detach of \+14155550101 \(inbound, outbound\) is not known/,
		);
		expect(result.error?.description).toMatch(/^Reading the configuration to find out failed/);
	});

	it('repeated after its answer was lost: the repeat finds it detached, and that is success', async () => {
		let calls = 0;
		const result = await run({ ...sipDetach, options: { maxWaitSeconds: 0.05 } }, (_, res, req) => {
			if (req.method === 'GET') return json(res, 200, detachedNumber);
			calls++;
			if (calls === 1) return void req.socket.destroy();
			json(res, 409, { error: { status: 409, message: 'already detached' } });
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ success: true, status: 409 });
		expect(service.requests.map((request) => request.url)).toEqual([
			'/sip/detach2',
			'/sip/detach2',
			'/sip/%2B14155550101',
		]);
	});

	it('other failures still fail', async () => {
		const result = await run(sipDetach, (_, res) =>
			json(res, 400, { error: { message: 'invalid direction' } }),
		);
		expect(result.error?.message).toBe('Voice AI rejected the request: invalid direction');
	});
});

describe('error answers that are not JSON', () => {
	it("a 400 with text/plain shows the service's text", async () => {
		const result = await run(webhookSet, text(400, 'Webhook URL must use https\n'));
		expect(result.error?.message).toBe('Voice AI rejected the request: Webhook URL must use https');
		expect(result.error?.httpCode).toBe('400');
	});

	it('a 403 with text/plain shows it too', async () => {
		const result = await run(listNames, text(403, 'Key lacks the contacts scope'));
		expect(result.error?.message).toBe(
			'Voice AI refused access (403): Key lacks the contacts scope',
		);
	});

	it('an HTML error page is shown by its title, not its markup', async () => {
		const result = await run(
			{ ...listNames, options: { maxAttempts: 1 } },
			text(
				502,
				'<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>',
				'text/html',
			),
		);
		expect(result.error?.message).toBe('The Voice AI service failed (502): 502 Bad Gateway');
	});
});

describe('an answer past 25 MiB', () => {
	it.each([false, true])(
		'(length declared: %s) is refused and its connection closed by the node, within the run',
		async (declared) => {
			let closed = false;
			let sent = 0;
			const result = await run({ ...listNames, options: { maxAttempts: 1 } }, (_, res) => {
				const chunk = Buffer.alloc(256 * 1024, 0x20);
				res.writeHead(200, {
					'Content-Type': 'application/json',
					...(declared ? { 'Content-Length': String(1024 * 1024 * 1024) } : {}),
				});
				res.on('close', () => (closed = true));
				const pump = (): void => {
					while (!closed) {
						sent += chunk.length;
						if (!res.write(chunk)) return void res.once('drain', pump);
					}
				};
				pump();
			});
			expect(result.error?.message).toMatch(
				/too large for the node \(limit 25 MiB\); the transfer was stopped/,
			);
			for (let wait = 0; !closed && wait < 40; wait++)
				await new Promise((resolve) => setTimeout(resolve, 25));
			expect(closed).toBe(true);
			expect(sent).toBeLessThan(64 * 1024 * 1024);
		},
	);
});

describe('values used in request paths', () => {
	const chatbot = (): INodeParameters => ({
		resource: 'chatbot',
		operation: 'update',
		chatbotId: '={{ $json.id }}',
		updateFields: { chatbotName: 'x' },
	});

	it.each([
		{ id: '.', problem: '"." would address another resource than the one meant' },
		{ id: '..', problem: '".." would address another resource than the one meant' },
		{
			id: 'cb_1/../../contacts',
			problem: '"cb_1/../../contacts" contains a slash, which would change the request path',
		},
		{ id: 'a/b', problem: '"a/b" contains a slash, which would change the request path' },
	])(
		'Chatbot $id is refused, naming the field and the item, and nothing is sent',
		async ({ id, problem }) => {
			const result = await run(chatbot(), (_, res) => json(res, 200, {}), {
				items: [{ json: { id } }],
			});
			expect(result.error?.name).toBe('NodeOperationError');
			expect(result.error?.message).toBe(`Invalid 'Chatbot' in item 0: ${problem}`);
			expect(result.error?.description).toMatch(/Nothing was sent to Voice AI for this item/);
			expect(service.requests).toEqual([]);
		},
	);

	it('anything else is an id the service may accept: sent, encoded', async () => {
		const result = await run(chatbot(), (_, res) => json(res, 200, { ok: true }), {
			items: [{ json: { id: 'a\\b c.d' } }, { json: { id: '...' } }],
		});
		expect(result.error).toBeUndefined();
		expect(service.requests.map((request) => request.url).sort()).toEqual([
			'/chatbot/...',
			'/chatbot/a%5Cb%20c.d',
		]);
	});

	it('an empty Chatbot ID is refused before anything is sent', async () => {
		const result = await run(chatbot(), (_, res) => json(res, 200, {}), {
			items: [{ json: { id: '' } }],
		});
		expect(result.error?.message).toMatch(/^Invalid 'Chatbot' in item 0: /);
		expect(service.requests).toEqual([]);
	});

	it('with Continue On Fail only that item fails; the others are sent', async () => {
		const result = await run(
			chatbot(),
			(request, res) => json(res, 200, { id: request.url.split('/').pop() }),
			{
				items: [{ json: { id: 'cb_1' } }, { json: { id: '..' } }, { json: { id: 'cb_2' } }],
				continueOnFail: true,
			},
		);
		expect(result.items.map((item) => item.json.id ?? item.json.error)).toEqual([
			'cb_1',
			expect.stringMatching(/^Invalid 'Chatbot' in item 1:/),
			'cb_2',
		]);
		expect(service.requests.map((request) => request.url).sort()).toEqual([
			'/chatbot/cb_1',
			'/chatbot/cb_2',
		]);
	});

	it('a plain path is checked segment by segment, whatever built it', () => {
		const node = () => ({
			id: 'n',
			name: 'Voice AI',
			type: 'voiceAi',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		});
		expect(buildPath(node, '/sip/%2B14155550101')).toBe('/sip/%2B14155550101');
		expect(() => buildPath(node, '/chatbot/..', 3)).toThrow(
			`Invalid 'request path' in item 3: in /chatbot/.., ".." would address another resource than the one meant`,
		);
		expect(() => buildPath(node, '/chatbot/%2E%2E', 0)).toThrow(/would address another resource/);
		expect(() => buildPath(node, '/chatbot/', 0)).toThrow('in /chatbot/, a segment is empty');
		expect(() => buildPath(node, '/agency//trust-products', 0)).toThrow('a segment is empty');
		expect(() => buildPath(node, '/chatbot/a%2Fb', 0)).toThrow(/contains a slash/);
	});
});

describe('a hard failure stops the requests of the execution that have not started', () => {
	it('an item waiting to repeat after a 503 does not repeat once another item failed without Continue On Fail', async () => {
		const result = await run(
			{
				resource: 'sip',
				operation: 'get',
				phoneNumber: '={{ $json.phone }}',
				options: { concurrency: 2, maxAttempts: 4 },
			},
			(request, res) => {
				if (request.url.endsWith('0002')) return json(res, 503, { error: { message: 'busy' } });
				setTimeout(() => json(res, 400, { error: { message: 'number not provisioned' } }), 50);
			},
			{
				items: [
					{ json: { phone: '+14155550001' } },
					{ json: { phone: '+14155550002' } },
					{ json: { phone: '+14155550003' } },
				],
			},
		);
		expect(result.error?.message).toBe('Voice AI rejected the request: number not provisioned');
		expect(result.error?.context?.itemIndex).toBe(0);
		// Item 1 got its 503 before item 0 failed; its repeat (due 250 to 500 ms later) never went out, nor did item 2.
		expect(service.requests.map((request) => request.url).sort()).toEqual([
			'/sip/%2B14155550001',
			'/sip/%2B14155550002',
		]);
	});

	it('the item stopped is not what the node reports, even when its operation handles errors itself (SIP Detach)', async () => {
		const result = await run(
			{
				...sipDetach,
				phoneNumber: '={{ $json.phone }}',
				options: { concurrency: 2, maxAttempts: 4 },
			},
			(request, res) => {
				const phone = (JSON.parse(request.body.toString('utf8')) as { phone_number: string })
					.phone_number;
				if (phone.endsWith('0001')) return json(res, 503, { error: { message: 'busy' } });
				setTimeout(() => json(res, 400, { error: { message: 'unknown number' } }), 50);
			},
			{ items: [{ json: { phone: '+14155550001' } }, { json: { phone: '+14155550002' } }] },
		);
		expect(result.error?.message).toBe('Voice AI rejected the request: unknown number');
		expect(result.error?.context?.itemIndex).toBe(1);
		expect(service.requests).toHaveLength(2);
	});

	it('with Continue On Fail the other items carry on', async () => {
		let busy = 0;
		const result = await run(
			{
				resource: 'sip',
				operation: 'get',
				phoneNumber: '={{ $json.phone }}',
				options: { concurrency: 2, maxAttempts: 2, maxWaitSeconds: 0.05 },
			},
			(request, res) => {
				if (request.url.endsWith('0002') && busy++ === 0)
					return json(res, 503, { error: { message: 'busy' } });
				if (request.url.endsWith('0001'))
					return json(res, 400, { error: { message: 'number not provisioned' } });
				json(res, 200, { phone_number: decodeURIComponent(request.url.split('/').pop()!) });
			},
			{
				items: [{ json: { phone: '+14155550001' } }, { json: { phone: '+14155550002' } }],
				continueOnFail: true,
			},
		);
		expect(result.items.map((item) => item.json.phone_number ?? item.json.error)).toEqual([
			'Voice AI rejected the request: number not provisioned',
			'+14155550002',
		]);
	});
});

describe('the Base URL is read by the parser that sends and refused by name before anything is sent', () => {
	let other: Loopback;
	beforeAll(async () => {
		other = await startLoopback();
		other.handle((_, res) => json(res, 200, []));
	});
	afterAll(async () => await other?.close());
	beforeEach(() => {
		other.requests.length = 0;
		service.handle((_, res) => json(res, 200, []));
	});

	const hostOf = (url: string) => new URL(url).host;
	const apiKey = 'ct_base_url_test_0123456789';
	const BACKSLASH = /^holds a backslash \(\\\), which the URL parser reads as a slash/;
	const cases: Array<{ what: string; baseUrl: () => string; problem: () => RegExp }> = [
		{
			what: 'another host, a backslash, then @ and the service host',
			baseUrl: () => `${other.url}\\@${hostOf(service.url)}`,
			problem: () => new RegExp(`${BACKSLASH.source}.*reads the host as ${other.url}\\)`),
		},
		{
			what: 'the service host, a backslash, then @ and another host',
			baseUrl: () => `${service.url}\\@${hostOf(other.url)}`,
			problem: () => new RegExp(`${BACKSLASH.source}.*reads the host as ${service.url}\\)`),
		},
		{
			what: 'user info',
			baseUrl: () => `http://voiceai:pw-in-the-url@${hostOf(service.url)}`,
			problem: () => /^holds a user name or password before the host/,
		},
		{
			what: 'a query',
			baseUrl: () => `${service.url}/?v=2`,
			problem: () => /^holds a query \(\?\) or a fragment \(#\)/,
		},
		{
			what: 'an empty query',
			baseUrl: () => `${service.url}/?`,
			problem: () => /^holds a query \(\?\) or a fragment \(#\)/,
		},
		{
			what: 'a fragment',
			baseUrl: () => `${service.url}/#`,
			problem: () => /^holds a query \(\?\) or a fragment \(#\)/,
		},
		{
			what: 'a tab inside the host, which the parser drops',
			baseUrl: () => service.url.replace('127.0.0.1', '127.0.\t0.1'),
			problem: () => /^holds a space or a control character/,
		},
	];

	it.each(cases)('$what: the node refuses it by name', async ({ baseUrl, problem }) => {
		const result = await runNode({
			parameters: { resource: 'agent', operation: 'getAll', returnAll: true },
			credentials: { voiceAiApi: { baseUrl: baseUrl(), apiKey } },
		});
		expect(result.error?.name).toBe('NodeOperationError');
		const { message, description } = result.error!;
		const prefix = 'The Voice AI credential has no valid base URL: the Base URL ';
		expect(message.startsWith(prefix)).toBe(true);
		expect(message.slice(prefix.length)).toMatch(problem());
		expect(description).toMatch(/^Open the Voice AI credential.*Nothing was sent\.$/);
		expect(JSON.stringify(result.error)).not.toContain('pw-in-the-url');
		expect({ service: service.requests, other: other.requests }).toEqual({
			service: [],
			other: [],
		});
	});

	it.each(cases)('$what: the credential test refuses it by name', async ({ baseUrl, problem }) => {
		const result = await testCredential('voiceAiApi', { baseUrl: baseUrl(), apiKey });
		expect(result.status).toBe('Error');
		expect(result.message.startsWith('The Base URL ')).toBe(true);
		expect(result.message.slice('The Base URL '.length)).toMatch(problem());
		expect(result.message).not.toContain('pw-in-the-url');
		expect({ service: service.requests, other: other.requests }).toEqual({
			service: [],
			other: [],
		});
	});

	it.each(cases)('$what: the agent picker refuses it by name', async ({ baseUrl, problem }) => {
		const picker = new TriggerWorkflow({ baseUrl: baseUrl(), apiKey });
		const refusal = await picker.listSearch('searchAgents').then(
			() => undefined,
			(error: unknown) => error as Error,
		);
		const prefix = 'The Voice AI credential has no valid base URL: the Base URL ';
		expect(refusal?.message.startsWith(prefix)).toBe(true);
		expect(refusal?.message.slice(prefix.length)).toMatch(problem());
		expect({ service: service.requests, other: other.requests }).toEqual({
			service: [],
			other: [],
		});
	});

	it('the agent picker names the parsed origin when the answer is not a list', async () => {
		service.handle((_, res) => json(res, 200, { agents: 'none' }));
		const baseUrl = `${service.url.replace('http://127.0.0.1', 'HTTP://127.0.0.1')}/`;
		const refusal = await new TriggerWorkflow({ baseUrl, apiKey }).listSearch('searchAgents').then(
			() => undefined,
			(error: unknown) => error as Error & { description?: string },
		);
		expect(refusal?.message).toMatch(/not a list/);
		expect(refusal?.description).toBe(
			`Check that the base URL in the Voice AI credential (${service.url}) points at the Voice AI API.`,
		);
	});

	it('a path and trailing slashes: requests go to that path of the parsed origin', async () => {
		const baseUrl = `${service.url.replace('http://', 'HTTP://')}/api/v1//`;
		const result = await runNode({
			parameters: { resource: 'agent', operation: 'getAll', returnAll: true },
			credentials: { voiceAiApi: { baseUrl, apiKey } },
		});
		expect(result.error).toBeUndefined();
		const credentialTest = await testCredential('voiceAiApi', { baseUrl, apiKey });
		expect(credentialTest.status).toBe('OK');
		expect(service.requests.map((request) => request.url)).toEqual([
			'/api/v1/callback/standardCampaign',
			'/api/v1/contacts/list-names',
		]);
	});

	it('an answer the node does not expect names the parsed origin', async () => {
		service.handle((_, res) => json(res, 418, { error: { message: 'teapot' } }));
		const result = await runNode({
			parameters: listNames,
			credentials: {
				voiceAiApi: {
					baseUrl: service.url.replace('http://127.0.0.1', 'HTTP://127.0.0.1'),
					apiKey,
				},
			},
		});
		expect(result.error?.description).toBe(
			`An answer the node does not expect. Check the base URL in the credential (${service.url}).`,
		);
	});

	it('a failed connection names the parsed origin, the one contacted', async () => {
		const closed = await startLoopback();
		await closed.close();
		const result = await runNode({
			parameters: { ...listNames, options: { maxAttempts: 1 } },
			credentials: {
				voiceAiApi: { baseUrl: `${closed.url.replace('http://', 'HTTP://')}/`, apiKey },
			},
		});
		expect(result.error?.message).toMatch(/^Voice AI refused the connection/);
		expect(result.error?.description).toContain(
			`Check that the base URL in the credential (${closed.url}) is right`,
		);
	});
});

describe('Secrets reads user info with the URL parser', () => {
	it('a name before a backslash and @ is a host, not user info: it stays readable', () => {
		const secrets = new Secrets();
		secrets.addFromUrl('https://crm.example.com\\@hooks.example.com/h');
		expect(secrets.redact('sent to crm.example.com\\ and hooks.example.com')).toBe(
			'sent to crm.example.com\\ and hooks.example.com',
		);
	});

	it('real user info is still hidden, as typed and decoded', () => {
		const secrets = new Secrets();
		secrets.addFromUrl('https://voiceai:p%40ss@hooks.example.com/h');
		expect(secrets.redact('voiceai:p%40ss p@ss p%40ss')).toBe('*** *** ***');
	});
});

describe('an error answer that echoes the API key', () => {
	const apiKey = 'ct_echoed_key_test_0123456789';
	const echoes: Handler = (_, res) =>
		json(res, 400, {
			message: 'Invalid request',
			request: { headers: { authorization: `Bearer ${apiKey}` }, note: `key ${apiKey}` },
		});

	it("the agent picker's error keeps the key nowhere n8n can show or store", async () => {
		service.handle(echoes);
		const refusal = await new TriggerWorkflow({ baseUrl: service.url, apiKey })
			.listSearch('searchAgents')
			.then(
				() => undefined,
				(error: unknown) => error as Error,
			);
		expect(refusal?.message).toMatch(/Invalid request/);
		expect(inspect(refusal, { depth: 20, showHidden: true })).not.toContain(apiKey);
	});
});
