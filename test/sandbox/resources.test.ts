import { expectError, type Reply } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

describe('sandbox agents, contacts, trust products and webhook', () => {
	const h = startedSandbox();

	const agent = {
		phoneNumber: '+14155550150',
		agentName: 'Billing',
		task: 'Answer billing questions.',
		selectedVoice: 'june',
	};

	/** A 200 whose records carry, in order, these values of `field`, and each exactly `fields`. */
	const expectList = (reply: Reply, field: string, values: string[], fields: string[]) => {
		expect(reply.status).toBe(200);
		expect(reply.body.map((record: Record<string, string>) => record[field])).toEqual(values);
		for (const record of reply.body) expect(Object.keys(record).sort()).toEqual(fields);
	};

	it('lists the seeded agents of the caller only', async () => {
		const acme = await h().api('GET', '/callback/standardCampaign');
		expectList(
			acme,
			'agentName',
			['Reception', 'Recall Reminders'],
			['agentName', 'created_at', 'id', 'phoneNumber', 'selectedVoice', 'task'],
		);
		const globex = await h().api('GET', '/callback/standardCampaign', { key: h().globexKey });
		expect(globex.body).toHaveLength(1);
	});

	it('creates an agent (201) and lists it afterwards', async () => {
		const created = await h().api('POST', '/callback/standardCampaign', { json: agent });
		expect(created.status).toBe(201);
		expect(created.body).toEqual({
			...agent,
			id: expect.stringMatching(/^agent_/),
			created_at: expect.any(String),
		});
		expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);
		const listed = await h().api('GET', '/callback/standardCampaign');
		expect(listed.body.at(-1)).toEqual(created.body);
	});

	it('answers 409 for an agentName that exists in the organization, whatever its case', async () => {
		expectError(
			await h().api('POST', '/callback/standardCampaign', {
				json: { ...agent, agentName: 'RECEPTION' },
			}),
			409,
			'conflict',
			'agentName',
		);
		// Another organization may use the same name.
		const globex = await h().api('POST', '/callback/standardCampaign', {
			key: h().globexKey,
			json: { ...agent, agentName: 'Reception' },
		});
		expect(globex.status).toBe(201);
	});

	it.each([
		['phoneNumber', { phoneNumber: '4155550150' }],
		['phoneNumber', { phoneNumber: '+0415555' }],
		['phoneNumber', { phoneNumber: '+1415555015012345' }],
		['agentName', { agentName: '   ' }],
		['task', { task: '' }],
		['selectedVoice', { selectedVoice: 'Maya' }],
		['selectedVoice', { selectedVoice: 'hal9000' }],
		['agentName', { agentName: 42 }],
		['nickname', { nickname: 'x' }],
	])('answers 400 naming %s for a bad agent', async (field, change) => {
		expectError(
			await h().api('POST', '/callback/standardCampaign', { json: { ...agent, ...change } }),
			400,
			'invalid_field',
			field,
		);
	});

	it.each(['phoneNumber', 'agentName', 'task', 'selectedVoice'])('requires %s', async (field) => {
		const body: Record<string, string> = { ...agent, agentName: 'Other' };
		delete body[field];
		expectError(
			await h().api('POST', '/callback/standardCampaign', { json: body }),
			400,
			'invalid_field',
			field,
		);
	});

	it('lists distinct contact list names per organization', async () => {
		expect((await h().api('GET', '/contacts/list-names')).body).toEqual([
			'Leads',
			'Patients',
			'Newsletter',
		]);
		expect((await h().api('GET', '/contacts/list-names', { key: h().globexKey })).body).toEqual([
			'Enterprise',
		]);
		await h().admin('POST', '/orgs/org_acme/seed', {
			contacts: [{ list: 'Leads', name: 'New lead' }, { list: 'VIP' }],
		});
		expect((await h().api('GET', '/contacts/list-names')).body).toEqual([
			'Leads',
			'Patients',
			'Newsletter',
			'VIP',
		]);
	});

	it('lists the trust products of the carrier twilio, with every field a string', async () => {
		const reply = await h().api('GET', '/agency/twilio/trust-products');
		expectList(
			reply,
			'friendly_name',
			['Acme Dental SHAKEN/STIR', 'Acme Dental Voice Integrity', 'Acme Dental CNAME'],
			[
				'account_sid',
				'date_created',
				'date_updated',
				'email',
				'friendly_name',
				'policy_sid',
				'sid',
				'status',
				'url',
			],
		);
		for (const product of reply.body)
			for (const value of Object.values(product)) expect(typeof value).toBe('string');
		const globex = await h().api('GET', '/agency/twilio/trust-products', { key: h().globexKey });
		expect(globex.body.map((p: { sid: string }) => p.sid)).not.toContain(reply.body[0].sid);
	});

	it.each(['telnyx', 'Twilio', 'vonage'])(
		'answers 404 for the unknown carrier %s',
		async (carrier) => {
			expectError(await h().api('GET', `/agency/${carrier}/trust-products`), 404, 'not_found');
		},
	);

	it('sets the account webhook', async () => {
		const reply = await h().api('POST', '/webhook/insert-webhook', {
			json: { webhook: 'https://hooks.acme-dental.example/voice' },
		});
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({ message: 'Webhook updated' });
		expect((await h().admin('GET', '/orgs/org_acme/state')).body.webhook).toBe(
			'https://hooks.acme-dental.example/voice',
		);
		expect((await h().admin('GET', '/orgs/org_globex/state')).body.webhook).toBeNull();
		const again = await h().api('POST', '/webhook/insert-webhook', {
			json: { webhook: 'http://127.0.0.1:5678/webhook/abc?token=s3cret' },
		});
		expect(again.status).toBe(200);
		expect((await h().admin('GET', '/orgs/org_acme/state')).body.webhook).toBe(
			'http://127.0.0.1:5678/webhook/abc?token=s3cret',
		);
	});

	it.each([
		[{ webhook: 'ftp://files.example/hook' }, 'webhook'],
		[{ webhook: 'not a url' }, 'webhook'],
		[{ webhook: '' }, 'webhook'],
		[{ webhook: 12 }, 'webhook'],
		[{}, 'webhook'],
		[{ webhook: 'https://ok.example', secret: 'x' }, 'secret'],
	])('answers 400 for the webhook body %j', async (body, field) => {
		expectError(
			await h().api('POST', '/webhook/insert-webhook', { json: body }),
			400,
			'invalid_field',
			field,
		);
	});
});
