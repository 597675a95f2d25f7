import { startedSandbox } from './startedSandbox';

const SIP = {
	phone_number: '+14155550101',
	directions: [
		{
			type: 'inbound',
			sip_endpoint: 'sip:pbx.shapes.example',
			options: { port: 5060, transport: 'udp', secure_media: true },
		},
	],
};

describe('answer shapes for what the spec does not show', () => {
	const h = startedSandbox();
	afterEach(async () => {
		await h().admin('PUT', '/orgs/org_acme/shapes', { shapes: null });
		await h().admin('PUT', '/config', { shapes: 'documented' });
	});

	it('documented (the default): bare agent list, created agent, JSON SIP answers and error bodies', async () => {
		const list = await h().api('GET', '/callback/standardCampaign');
		expect(Array.isArray(list.body)).toBe(true);
		const created = await h().api('POST', '/callback/standardCampaign', {
			json: {
				phoneNumber: '+14155550170',
				agentName: 'Shapes documented',
				task: 't',
				selectedVoice: 'maya',
			},
		});
		expect(created.status).toBe(201);
		expect(created.body).toMatchObject({ id: expect.any(String), agentName: 'Shapes documented' });
		const updated = await h().api('PATCH', '/sip/sip2', { json: SIP });
		expect(updated.body).toMatchObject({
			message: 'SIP configuration updated',
			phone_number: SIP.phone_number,
		});
		const missing = await h().api('GET', '/sip/+19995550000');
		expect(missing.status).toBe(404);
		expect(missing.body).toMatchObject({ error: { status: 404 } });
	});

	it('wrapped, per organization: {"data":[…]}, {"data":{…}}, text/plain SIP answers and errors; the other org keeps documented', async () => {
		expect((await h().admin('PUT', '/orgs/org_acme/shapes', { shapes: 'wrapped' })).body).toEqual({
			shapes: 'wrapped',
			effective: 'wrapped',
		});
		const list = await h().api('GET', '/callback/standardCampaign');
		expect(list.body).toEqual({
			data: expect.arrayContaining([expect.objectContaining({ agentName: 'Reception' })]),
		});
		const created = await h().api('POST', '/callback/standardCampaign', {
			json: {
				phoneNumber: '+14155550171',
				agentName: 'Shapes wrapped',
				task: 't',
				selectedVoice: 'maya',
			},
		});
		expect(created.status).toBe(201);
		expect(created.body).toEqual({
			data: expect.objectContaining({ agentName: 'Shapes wrapped' }),
		});
		const updated = await h().api('PATCH', '/sip/sip2', { json: SIP });
		expect([updated.status, updated.headers['content-type'], updated.text]).toEqual([
			200,
			'text/plain; charset=utf-8',
			'SIP configuration unchanged',
		]);
		const detached = await h().api('POST', '/sip/detach2', {
			json: { phone_number: SIP.phone_number, directions: [{ type: 'inbound' }] },
		});
		expect([detached.status, detached.text]).toEqual([200, 'Phone number detached']);
		const bad = await h().api('POST', '/webhook/insert-webhook', {
			json: { webhook: 'not a url' },
		});
		expect([bad.status, String(bad.headers['content-type'])]).toEqual([
			400,
			'text/plain; charset=utf-8',
		]);
		expect(bad.text).toMatch(/^webhook /);
		// Answers the spec shows keep their shape.
		expect(Array.isArray((await h().api('GET', '/contacts/list-names')).body)).toBe(true);
		expect(Array.isArray((await h().api('GET', '/agency/twilio/trust-products')).body)).toBe(true);
		expect(
			(
				await h().api('POST', '/webhook/insert-webhook', {
					json: { webhook: 'https://x.example/h' },
				})
			).body,
		).toEqual({ message: 'Webhook updated' });
		expect(
			Array.isArray(
				(await h().api('GET', '/callback/standardCampaign', { key: h().globexKey })).body,
			),
		).toBe(true);
	});

	it('minimal, for the whole sandbox: {"agents":[…]}, message and id, 204 and empty 200 for SIP writes, text/plain 401', async () => {
		await h().admin('PUT', '/config', { shapes: 'minimal' });
		expect((await h().api('GET', '/callback/standardCampaign')).body).toEqual({
			agents: expect.any(Array),
		});
		const created = await h().api('POST', '/callback/standardCampaign', {
			json: {
				phoneNumber: '+14155550172',
				agentName: 'Shapes minimal',
				task: 't',
				selectedVoice: 'maya',
			},
		});
		expect([created.status, created.body]).toEqual([
			200,
			{ message: 'Agent created', id: expect.stringMatching(/^agent_/) },
		]);
		const updated = await h().api('PATCH', '/sip/sip2', {
			json: { ...SIP, phone_number: '+14155550102', trunkName: 'minimal' },
		});
		expect([updated.status, updated.text]).toEqual([204, '']);
		const detached = await h().api('POST', '/sip/detach2', {
			json: { phone_number: '+14155550102', directions: [{ type: 'inbound' }] },
		});
		expect([detached.status, detached.headers['content-length'], detached.text]).toEqual([
			200,
			'0',
			'',
		]);
		const refused = await h().api('GET', '/contacts/list-names', { key: 'ct_wrong' });
		expect([refused.status, String(refused.headers['content-type']), refused.text]).toEqual([
			401,
			'text/plain; charset=utf-8',
			'malformed API key',
		]);
		// The admin API is not the service: always JSON.
		expect((await h().admin('GET', '/orgs/org_nope/state')).body).toMatchObject({
			error: { status: 404 },
		});
	});

	it('refuses an unknown shapes name', async () => {
		expect((await h().admin('PUT', '/config', { shapes: 'odd' })).status).toBe(400);
		expect((await h().admin('PUT', '/orgs/org_acme/shapes', { shapes: 'odd' })).status).toBe(400);
		expect((await h().admin('PUT', '/orgs/org_acme/shapes', {})).status).toBe(400);
	});
});
