// What each operation sends and answers is the catalogue's wire test (catalogue.test.ts); here: what
// goes beyond one request (several items, Limit, state kept or changed, uploads, the credential).
import { cases } from '../../harness/catalogue';
import { testCredential } from '../../harness/engine';
import { forgetRequests, json, type Loopback, startLoopback } from '../../harness/loopback';
import { PNG, SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

describe('agent', () => {
	it('Get Many returns one item per agent, Limit cuts the list', async () => {
		const all = await fx.run({ resource: 'agent', operation: 'getAll', returnAll: true });
		expect(all.error).toBeUndefined();
		expect(all.items.map((item) => item.json.agentName)).toEqual(['Reception', 'Recall Reminders']);
		expect(all.items.every((item) => typeof item.json.id === 'string')).toBe(true);
		expect(all.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);

		const one = await fx.run({
			resource: 'agent',
			operation: 'getAll',
			returnAll: false,
			limit: 1,
		});
		expect(one.items).toHaveLength(1);
	});

	it('Create sends the four fields and returns the created agent', async () => {
		// The catalogue's example: two items, phone and name from each item's JSON.
		const { parameters, items } = cases.agent.create.example;
		const result = await fx.run(
			{ resource: 'agent', operation: 'create', ...parameters },
			{ items },
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [item.json.agentName, item.json.phoneNumber, item.pairedItem]),
		).toEqual([
			['Onboarding 1', '+14155550123', { item: 0 }],
			['Onboarding 2', '+14155550124', { item: 1 }],
		]);
		const state = await fx.state<{ agents: Array<{ agentName: string; selectedVoice: string }> }>();
		expect(state.agents.filter((agent) => agent.agentName.startsWith('Onboarding'))).toHaveLength(
			2,
		);
		const posts = (await fx.requests()).filter((request) => request.method === 'POST');
		expect(posts.map((request) => [request.status, request.contentType])).toEqual([
			[201, 'application/json'],
			[201, 'application/json'],
		]);
	});
});

describe('chatbot uploads', () => {
	const uploadsOf = async (chatbotId: string) =>
		(
			await fx.state<{
				uploads: Array<{
					chatbotId: string;
					field: string;
					filename: string;
					contentType: string;
					size: number;
				}>;
			}>()
		).uploads.filter((upload) => upload.chatbotId === chatbotId);

	it('Update sends an image kept in the item itself (memory binary mode) with the text fields beside it', async () => {
		const result = await fx.run(
			{
				resource: 'chatbot',
				operation: 'update',
				chatbotId: 'cb_acme_support',
				updateFields: {
					chatbotImageProperty: 'logo',
					welcome_message: 'Hello "there"\nsecond line',
				},
			},
			{
				items: [
					{
						json: {},
						binary: {
							logo: {
								data: PNG,
								mimeType: 'image/png',
								fileName: 'inline "logo".png',
								inline: true,
							},
						},
					},
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.welcome_message).toBe('Hello "there"\r\nsecond line');
		const uploads = await uploadsOf('cb_acme_support');
		expect(uploads.at(-1)).toMatchObject({
			field: 'chatbot_image',
			filename: 'inline %22logo%22.png',
			size: PNG.length,
		});
	});
});

describe('contact', () => {
	it('Get List Names returns one item { name } per list name', async () => {
		const result = await fx.run({
			resource: 'contact',
			operation: 'getListNames',
			returnAll: true,
		});
		expect(result.items.map((item) => item.json)).toEqual([
			{ name: 'Leads' },
			{ name: 'Patients' },
			{ name: 'Newsletter' },
		]);
		const limited = await fx.run({
			resource: 'contact',
			operation: 'getListNames',
			returnAll: false,
			limit: 2,
		});
		expect(limited.items.map((item) => item.json.name)).toEqual(['Leads', 'Patients']);
	});
});

describe('sip', () => {
	it('Update changes one direction and keeps the other by default', async () => {
		const before = await fx.run({ resource: 'sip', operation: 'get', phoneNumber: '+14155550102' });
		const types = (before.items[0].json.directions as Array<{ type: string }>)
			.map((d) => d.type)
			.sort();

		const result = await fx.run({
			resource: 'sip',
			operation: 'update',
			phoneNumber: '+14155550102',
			trunkName: 'acme-main-2',
			directions: {
				inbound: {
					sipEndpoint: 'sip:pbx2.acme-dental.example',
					port: 5060,
					transport: 'udp',
					secureMedia: true,
					sipUsername: 'acme',
					sipPassword: 's3cret',
				},
			},
		});
		expect(result.error).toBeUndefined();
		const out = result.items[0].json as {
			sip: {
				trunkName: string;
				directions: Array<{
					type: string;
					sip_endpoint: string;
					options: { sip_password: string };
				}>;
			};
			operations: unknown[];
		};
		expect(out.sip.trunkName).toBe('acme-main-2');
		expect(out.sip.directions.map((d) => d.type).sort()).toEqual(types);
		const inbound = out.sip.directions.find((d) => d.type === 'inbound')!;
		expect(inbound.sip_endpoint).toBe('sip:pbx2.acme-dental.example');
		expect(inbound.options.sip_password).toBe('(set, hidden)');
		expect(out.operations).toEqual(
			expect.arrayContaining([{ op: 'rename' }, { op: 'update', direction: 'inbound' }]),
		);
		expect(JSON.stringify(result.items)).not.toContain('s3cret');
	});

	it('Update with "Directions Not Listed: Detach" sends only the listed direction', async () => {
		const result = await fx.run({
			resource: 'sip',
			operation: 'update',
			phoneNumber: '+14155550103',
			unlistedDirections: 'detach',
			directions: {
				outbound: { sipEndpoint: 'sip:10.0.0.5', port: 5080, transport: 'tcp', secureMedia: false },
			},
		});
		expect(result.error).toBeUndefined();
		const sip = result.items[0].json.sip as { directions: Array<{ type: string }> };
		expect(sip.directions.map((d) => d.type)).toEqual(['outbound']);
		// The login fields were left empty: the node reads the current ones first and sends them along.
		expect((await fx.requests()).map((r) => r.method)).toEqual(['GET', 'PATCH']);
	});

	it('Detach unlinks the chosen directions', async () => {
		const result = await fx.run({
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550101',
			directions: ['outbound'],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			phone_number: '+14155550101',
			detached: ['outbound'],
		});
		const log = await fx.admin<Array<{ op: string; direction?: string; phone_number: string }>>(
			'GET',
			'/orgs/org_acme/carrier-log',
		);
		expect(
			log
				.filter((entry) => entry.phone_number === '+14155550101')
				.map((entry) => [entry.op, entry.direction]),
		).toContainEqual(['detach', 'outbound']);
	});
});

describe('webhook', () => {
	it('Set registers the account webhook and passes the answer through', async () => {
		const result = await fx.run({
			resource: 'webhook',
			operation: 'set',
			whenTriggerHolds: 'takeOver',
			webhookUrl: 'https://hooks.example.com/voiceai',
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([{ message: 'Webhook updated' }]);
		expect((await fx.state<{ webhook: string }>()).webhook).toBe(
			'https://hooks.example.com/voiceai',
		);
	});
});

describe('credential', () => {
	it.each(['bearer', 'xApiKey'])('sends the key in exactly one header (%s)', async (authHeader) => {
		const read = await fx.run(
			{ resource: 'contact', operation: 'getListNames', returnAll: true },
			{ credentials: { authHeader } },
		);
		expect(read.error).toBeUndefined();
		const write = await fx.run(
			{
				resource: 'webhook',
				operation: 'set',
				whenTriggerHolds: 'takeOver',
				webhookUrl: 'https://hooks.example.com/a',
			},
			{ credentials: { authHeader } },
		);
		expect(write.error).toBeUndefined();
		const requests = await fx.requests();
		expect(requests.map((request) => request.auth)).toEqual(
			authHeader === 'bearer' ? ['bearer', 'bearer'] : ['x-api-key', 'x-api-key'],
		);
		// never in a URL (path or query) nor in an output item
		expect(JSON.stringify(requests.map(({ path, query }) => ({ path, query })))).not.toContain(
			fx.acme.apiKey,
		);
		expect(JSON.stringify([read.items, write.items])).not.toContain(fx.acme.apiKey);
	});

	it('test request succeeds with a valid key in either header', async () => {
		for (const authHeader of ['bearer', 'xApiKey']) {
			const result = await testCredential('voiceAiApi', {
				baseUrl: fx.sandbox.baseUrl,
				apiKey: fx.acme.apiKey,
				authHeader,
			});
			expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		}
		expect((await fx.requests()).map((request) => [request.path, request.status])).toEqual([
			['/contacts/list-names', 200],
			['/contacts/list-names', 200],
		]);
	});

	it('test request explains a refused key', async () => {
		const wrong = await testCredential('voiceAiApi', {
			baseUrl: fx.sandbox.baseUrl,
			apiKey: 'ct_not_a_real_key',
		});
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/missing, malformed \(keys start with ct_\) or revoked/);
	});

	it('test request with a base URL that is not http(s) sends nothing', async () => {
		const result = await testCredential('voiceAiApi', {
			baseUrl: 'ftp://example.com',
			apiKey: fx.acme.apiKey,
		});
		expect(result.status).toBe('Error');
		expect(await fx.requests()).toEqual([]);
	});
});

describe('credential headers on the wire', () => {
	let capture: Loopback;
	beforeAll(async () => {
		// 200 [] to a key-shaped header, 401 otherwise, as the service answers.
		capture = await startLoopback(({ headers }, res) =>
			/^(Bearer )?ct_\S+$/.test(String(headers.authorization ?? headers['x-api-key'] ?? ''))
				? json(res, 200, [])
				: json(res, 401, { error: { status: 401, code: 'unauthorized', message: 'unauthorized' } }),
		);
	});
	afterAll(async () => await capture.close());
	beforeEach(() => forgetRequests(capture));

	it.each([
		['bearer', 'authorization', (key: string) => `Bearer ${key}`],
		['xApiKey', 'x-api-key', (key: string) => key],
	])(
		'%s: one header carries the key, the other is absent',
		async (authHeader, header, expected) => {
			const key = 'ct_wire_check_123';
			await testCredential('voiceAiApi', { baseUrl: capture.url, apiKey: key, authHeader });
			const [request] = capture.requests;
			expect(request.headers[header]).toBe(expected(key));
			expect(
				Object.keys(request.headers).filter(
					(name) => name === 'authorization' || name === 'x-api-key',
				),
			).toEqual([header]);
			expect(request.url).not.toContain(key);
		},
	);

	it('a value that is not shaped like a key is never sent', async () => {
		const result = await testCredential('voiceAiApi', {
			baseUrl: capture.url,
			apiKey: 'my-mailbox-password',
		});
		expect(result.status).toBe('Error');
		expect(JSON.stringify(capture.requests)).not.toContain('my-mailbox-password');
	});
});
