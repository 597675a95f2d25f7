import { expectError } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

describe('sandbox admin API', () => {
	const h = startedSandbox({ seed: 'none' });

	it('starts empty with seed none', async () => {
		expect(h().sandbox.orgs).toEqual([]);
		expect((await h().admin('GET', '/orgs')).body).toEqual([]);
	});

	it('creates an organization and a key that works at once', async () => {
		const org = await h().admin('POST', '/orgs', { name: 'Initech', id: 'org_initech' });
		expect(org.status).toBe(201);
		expect(org.body).toEqual({ id: 'org_initech', name: 'Initech' });
		expectError(
			await h().admin('POST', '/orgs', { name: 'Again', id: 'org_initech' }),
			409,
			'conflict',
			'id',
		);
		const key = await h().admin('POST', '/orgs/org_initech/keys', { name: 'crm' });
		expect(key.body).toEqual({
			id: expect.stringMatching(/^key_/),
			apiKey: expect.stringMatching(/^ct_/),
			prefix: expect.any(String),
			name: 'crm',
		});
		const reply = await h().api('GET', '/callback/standardCampaign', { key: key.body.apiKey });
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual([]);
		expectError(await h().admin('POST', '/orgs/org_nobody/keys', {}), 404, 'not_found');
	});

	it("seeds resources in bulk with the public API's rules, and shows them in the state", async () => {
		const seeded = await h().admin('POST', '/orgs/org_initech/seed', {
			chatbots: [
				{
					id: 'cb_initech',
					chatbotName: 'Initech Bot',
					persistent_buttons: [
						{
							label: 'Site',
							icon: 'globe',
							action_type: 'url',
							action_value: 'https://initech.example',
						},
					],
				},
			],
			agents: [
				{
					phoneNumber: '+15125550100',
					agentName: 'Front Desk',
					task: 'Greet callers.',
					selectedVoice: 'derek',
				},
			],
			sip: [
				{
					phone_number: '+15125550100',
					trunkName: 'initech-austin',
					directions: [
						{
							type: 'inbound',
							sip_endpoint: 'sip:pbx.initech.example',
							options: {
								port: 5060,
								transport: 'tls',
								secure_media: true,
								sip_username: 'u',
								sip_password: 'p',
							},
						},
					],
				},
			],
			contacts: [{ list: 'Customers', name: 'Bill', phoneNumber: '+15125550101' }],
			trustProducts: [{ friendly_name: 'Initech SHAKEN/STIR' }],
		});
		expect(seeded.status).toBe(201);
		const state = (await h().admin('GET', '/orgs/org_initech/state')).body;
		expect(state.chatbots[0]).toMatchObject({
			id: 'cb_initech',
			chatbotName: 'Initech Bot',
			template: 'classic',
		});
		expect(state.agents[0]).toMatchObject({ agentName: 'Front Desk' });
		expect(state.contactLists).toEqual(['Customers']);
		expect(state.sip[0].uuid_config_id).toMatch(/^[0-9a-f-]{36}$/);
		expect(state.trustProducts[0]).toMatchObject({
			carrier: 'twilio',
			friendly_name: 'Initech SHAKEN/STIR',
			sid: expect.stringMatching(/^BU/),
		});
		expect(state.webhook).toBeNull();
	});

	it('refuses a bad seed as a whole, naming the field', async () => {
		const expectSeedRefused = async (field: string, status: number, code: string, seed: object) =>
			expectError(await h().admin('POST', '/orgs/org_initech/seed', seed), status, code, field);
		await expectSeedRefused('chatbots[0].header_color', 400, 'invalid_field', {
			chatbots: [{ chatbotName: 'x', header_color: 'red' }],
		});
		const fiveButtons = Array.from({ length: 5 }, () => ({
			label: 'a',
			icon: 'b',
			action_type: 'url',
			action_value: 'https://a.example',
		}));
		await expectSeedRefused('chatbots[0].persistent_buttons', 400, 'invalid_field', {
			chatbots: [{ chatbotName: 'x', persistent_buttons: fiveButtons }],
		});
		await expectSeedRefused('sip[0].phone_number', 409, 'conflict', {
			contacts: [{ list: 'Never added' }],
			sip: [{ phone_number: '+15125550100', trunkName: 'dup' }],
		});
		await expectSeedRefused('agents[0].agentName', 409, 'conflict', {
			agents: [
				{ phoneNumber: '+15125550100', agentName: 'front desk', task: 't', selectedVoice: 'nat' },
			],
		});
		await expectSeedRefused('chatbots[0].id', 409, 'conflict', {
			chatbots: [{ id: 'cb_initech', chatbotName: 'Twin' }],
		});
		expect((await h().admin('GET', '/orgs/org_initech/state')).body.contactLists).toEqual([
			'Customers',
		]);
	});

	it('sets and clears a chatbot webhook_url', async () => {
		const set = await h().admin('PUT', '/orgs/org_initech/chatbots/cb_initech/webhook-url', {
			webhook_url: 'https://initech.example/bot',
		});
		expect(set.body.webhook_url).toBe('https://initech.example/bot');
		expectError(
			await h().admin('PUT', '/orgs/org_initech/chatbots/cb_initech/webhook-url', {
				webhook_url: 'javascript:alert(1)',
			}),
			400,
			'invalid_field',
			'webhook_url',
		);
		const cleared = await h().admin('PUT', '/orgs/org_initech/chatbots/cb_initech/webhook-url', {
			webhook_url: null,
		});
		expect(cleared.body.webhook_url).toBeNull();
	});

	it('keeps and clears the public request log', async () => {
		const log = (await h().admin('GET', '/requests?org=org_initech')).body;
		expect(log[0]).toEqual({
			at: expect.any(String),
			method: 'GET',
			path: '/callback/standardCampaign',
			query: {},
			orgId: 'org_initech',
			keyId: expect.stringMatching(/^key_/),
			auth: 'bearer',
			status: 200,
			contentType: null,
			bodySize: 0,
		});
		expect((await h().admin('DELETE', '/requests')).body.cleared).toBeGreaterThan(0);
		expect((await h().admin('GET', '/requests')).body).toEqual([]);
	});

	it('answers unknown admin paths with the error body', async () => {
		expectError(await h().admin('GET', '/nothing-here'), 404, 'not_found');
	});
});
