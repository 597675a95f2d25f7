import { expectError } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

const BASELINE = { port: 5060, transport: 'udp', secure_media: true };
const ENDPOINT = 'sip:pbx.acme-dental.example';
const path = (phone: string) => `/sip/${encodeURIComponent(phone)}`;

describe('sandbox SIP endpoints', () => {
	const h = startedSandbox({}, true);

	it('reads a number with its directions, password included (the spec lists sip_password among the options)', async () => {
		const reply = await h().api('GET', path('+14155550101'));
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({
			phone_number: '+14155550101',
			trunkName: 'acme-main',
			uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a01',
			directions: ['inbound', 'outbound'].map((type) => ({
				type,
				sip_endpoint: ENDPOINT,
				options: {
					...BASELINE,
					sip_username: 'acme-main',
					sip_password: `acme-main-secret-${type}`,
				},
			})),
		});
		// The unencoded + reaches the same number.
		expect((await h().api('GET', '/sip/+14155550101')).body.trunkName).toBe('acme-main');
	});

	it('shows the seeded drift of +14155550102 and +14155550103', async () => {
		const tcp = await h().api('GET', path('+14155550102'));
		expect(
			tcp.body.directions.map((d: { options: { transport: string } }) => d.options.transport),
		).toEqual(['tcp', 'tcp']);
		const port = await h().api('GET', path('+14155550103'));
		expect(port.body.directions[0].options).toMatchObject({ port: 5080, secure_media: false });
	});

	it.each(['4155550101', '+1-415-555-0101', 'sip2x'])(
		'answers 400 for the malformed number %s',
		async (phone) => {
			expectError(await h().api('GET', path(phone)), 400, 'invalid_field', 'phone_number');
		},
	);

	it('answers 404 for a number nobody has', async () => {
		expectError(await h().api('GET', path('+14155550999')), 404, 'not_found', 'phone_number');
	});

	it('renames a trunk and records the operation with the fake carrier', async () => {
		const reply = await h().api('PATCH', '/sip/sip2', {
			json: { phone_number: '+14155550101', trunkName: 'acme-main-2' },
		});
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({
			message: 'SIP configuration updated',
			phone_number: '+14155550101',
			operations: [{ op: 'rename' }],
			sip: { trunkName: 'acme-main-2' },
		});
		const log = await h().admin('GET', '/orgs/org_acme/carrier-log');
		expect(log.body).toEqual([
			expect.objectContaining({
				op: 'rename',
				phone_number: '+14155550101',
				trunkName: 'acme-main-2',
			}),
		]);
	});

	it('works out update, detach and attach operations from the wanted directions', async () => {
		const fixed = { type: 'inbound', sip_endpoint: ENDPOINT, options: { ...BASELINE } };
		const update = await h().api('PATCH', '/sip/sip2', {
			json: {
				phone_number: '+14155550102',
				uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a02',
				directions: [fixed],
			},
		});
		expect(update.status).toBe(200);
		expect(update.body.operations).toEqual([
			{ op: 'update', direction: 'inbound' },
			{ op: 'detach', direction: 'outbound' },
		]);
		// The password was left out, so it was kept.
		expect(update.body.sip.directions).toEqual([
			{
				type: 'inbound',
				sip_endpoint: ENDPOINT,
				options: {
					...BASELINE,
					sip_username: 'acme-recall',
					sip_password: 'acme-recall-secret-inbound',
				},
			},
		]);

		const outbound = {
			type: 'outbound',
			sip_endpoint: 'sip:10.0.0.5',
			options: { ...BASELINE, sip_username: 'out', sip_password: 'pw' },
		};
		const attach = await h().api('PATCH', '/sip/sip2', {
			json: { phone_number: '+14155550102', directions: [fixed, outbound] },
		});
		expect(attach.body.operations).toEqual([{ op: 'attach', direction: 'outbound' }]);

		const same = await h().api('PATCH', '/sip/sip2', {
			json: { phone_number: '+14155550102', directions: [outbound, fixed] },
		});
		expect(same.body).toMatchObject({ message: 'SIP configuration unchanged', operations: [] });

		const log = await h().admin('GET', '/orgs/org_acme/carrier-log');
		expect(
			log.body.map((e: { op: string; direction: string }) => `${e.op}:${e.direction}`),
		).toEqual(['update:inbound', 'detach:outbound', 'attach:outbound']);
		const state = await h().admin('GET', '/orgs/org_acme/state');
		const stored = state.body.sip.find(
			(s: { phone_number: string }) => s.phone_number === '+14155550102',
		);
		expect(
			stored.directions.find((d: { type: string }) => d.type === 'outbound').options.sip_password,
		).toBe('pw');
	});

	it.each([
		[{ trunkName: 'x' }, 'phone_number'],
		[{ phone_number: '555', trunkName: 'x' }, 'phone_number'],
		[
			{ phone_number: '+14155550101', uuid_config_id: 'not-a-uuid', trunkName: 'x' },
			'uuid_config_id',
		],
		[{ phone_number: '+14155550101', trunkName: '' }, 'trunkName'],
		[{ phone_number: '+14155550101', directions: {} }, 'directions'],
		[
			{
				phone_number: '+14155550101',
				directions: [{ type: 'sideways', sip_endpoint: ENDPOINT, options: BASELINE }],
			},
			'directions[0].type',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [{ type: 'inbound', sip_endpoint: 'http://pbx', options: BASELINE }],
			},
			'directions[0].sip_endpoint',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [{ type: 'inbound', sip_endpoint: 'sip:999.1.1.1', options: BASELINE }],
			},
			'directions[0].sip_endpoint',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: 'sip:user@pbx.example:5060', options: BASELINE },
				],
			},
			'directions[0].sip_endpoint',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: { ...BASELINE, port: 70000 } },
				],
			},
			'directions[0].options.port',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: { ...BASELINE, port: '5060' } },
				],
			},
			'directions[0].options.port',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: { ...BASELINE, transport: '' } },
				],
			},
			'directions[0].options.transport',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: { ...BASELINE, transport: 6 } },
				],
			},
			'directions[0].options.transport',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{
						type: 'inbound',
						sip_endpoint: ENDPOINT,
						options: { ...BASELINE, secure_media: 'yes' },
					},
				],
			},
			'directions[0].options.secure_media',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: { port: 5060, transport: 'udp' } },
				],
			},
			'directions[0].options.secure_media',
		],
		[
			{ phone_number: '+14155550101', directions: [{ type: 'inbound', sip_endpoint: ENDPOINT }] },
			'directions[0].options',
		],
		[
			{
				phone_number: '+14155550101',
				directions: [
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: BASELINE },
					{ type: 'inbound', sip_endpoint: ENDPOINT, options: BASELINE },
				],
			},
			'directions',
		],
		[{ phone_number: '+14155550101', trunkName: 'x', region: 'eu' }, 'region'],
	])('answers 400 for the sip2 body %j', async (body, field) => {
		expectError(await h().api('PATCH', '/sip/sip2', { json: body }), 400, 'invalid_field', field);
		expect((await h().admin('GET', '/orgs/org_acme/carrier-log')).body).toEqual([]);
	});

	it('answers 400 when sip2 is given nothing to change', async () => {
		expectError(
			await h().api('PATCH', '/sip/sip2', { json: { phone_number: '+14155550101' } }),
			400,
			'bad_request',
		);
	});

	it("answers 404 for an unknown number or a uuid_config_id that is not the number's", async () => {
		expectError(
			await h().api('PATCH', '/sip/sip2', {
				json: { phone_number: '+14155550999', trunkName: 'x' },
			}),
			404,
			'not_found',
			'phone_number',
		);
		const wrongConfig = await h().api('PATCH', '/sip/sip2', {
			json: {
				phone_number: '+14155550101',
				uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a02',
				trunkName: 'x',
			},
		});
		expectError(wrongConfig, 404, 'not_found', 'uuid_config_id');
	});

	it('detaches directions and says which', async () => {
		const reply = await h().api('POST', '/sip/detach2', {
			json: { phone_number: '+14155550103', directions: [{ type: 'outbound' }] },
		});
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({
			message: 'Phone number detached',
			phone_number: '+14155550103',
			detached: ['outbound'],
		});
		const after = await h().api('GET', path('+14155550103'));
		expect(after.body.directions.map((d: { type: string }) => d.type)).toEqual(['inbound']);
		expect((await h().admin('GET', '/orgs/org_acme/carrier-log')).body).toEqual([
			expect.objectContaining({
				op: 'detach',
				direction: 'outbound',
				phone_number: '+14155550103',
			}),
		]);
		const both = await h().api('POST', '/sip/detach2', {
			json: {
				phone_number: '+14155550101',
				directions: [{ type: 'outbound' }, { type: 'inbound' }],
			},
		});
		expect(both.body.detached).toEqual(['inbound', 'outbound']);
	});

	it('answers 409 when a direction to detach is not attached', async () => {
		await h().api('POST', '/sip/detach2', {
			json: { phone_number: '+14155550103', directions: [{ type: 'outbound' }] },
		});
		const again = await h().api('POST', '/sip/detach2', {
			json: { phone_number: '+14155550103', directions: [{ type: 'outbound' }] },
		});
		expectError(again, 409, 'conflict', 'directions[0].type');
	});

	it.each([
		[{ directions: [{ type: 'inbound' }] }, 'phone_number'],
		[{ phone_number: '+14155550101' }, 'directions'],
		[{ phone_number: '+14155550101', directions: [] }, 'directions'],
		[{ phone_number: '+14155550101', directions: [{ type: 'both' }] }, 'directions[0].type'],
		[{ phone_number: '+14155550101', directions: ['inbound'] }, 'directions[0]'],
		[
			{ phone_number: '+14155550101', directions: [{ type: 'inbound' }, { type: 'inbound' }] },
			'directions',
		],
	])('answers 400 for the detach2 body %j', async (body, field) => {
		expectError(await h().api('POST', '/sip/detach2', { json: body }), 400, 'invalid_field', field);
	});

	it('answers 404 for detaching a number nobody has', async () => {
		expectError(
			await h().api('POST', '/sip/detach2', {
				json: { phone_number: '+14155550999', directions: [{ type: 'inbound' }] },
			}),
			404,
			'not_found',
			'phone_number',
		);
	});

	it('takes any non-empty transport name (the spec shows udp and leaves the rest open)', async () => {
		const direction = {
			type: 'inbound',
			sip_endpoint: ENDPOINT,
			options: { ...BASELINE, transport: 'wss' },
		};
		const reply = await h().api('PATCH', '/sip/sip2', {
			json: { phone_number: '+14155550101', directions: [direction] },
		});
		expect(reply.status).toBe(200);
		expect(reply.body.sip.directions[0].options.transport).toBe('wss');
	});

	it('answers GET /sip in the shape set for the organization, and records the SIP writes it receives', async () => {
		const documented = (await h().api('GET', path('+14155550101'))).body;
		const shapes: Record<string, (reply: { body: unknown; text: string }) => void> = {
			data: (reply) => expect(reply.body).toEqual({ data: documented }),
			list: (reply) => expect(reply.body).toEqual(documented.directions),
			named: (reply) => expect(reply.body).toEqual({ sip: documented }),
			text: (reply) => expect(reply.text).toBe('SIP configuration of +14155550101: 2 direction(s)'),
			documented: (reply) => expect(reply.body).toEqual(documented),
		};
		for (const [shape, check] of Object.entries(shapes)) {
			expect((await h().admin('PUT', '/orgs/org_acme/sip-get-shape', { shape })).body).toEqual({
				shape,
			});
			check(await h().api('GET', path('+14155550101')));
		}
		expect((await h().admin('PUT', '/orgs/org_acme/sip-get-shape', { shape: 'xml' })).status).toBe(
			400,
		);

		await h().api('PATCH', '/sip/sip2', {
			json: { phone_number: '+14155550101', trunkName: 'renamed' },
		});
		expect((await h().admin('GET', '/orgs/org_acme/sip-writes')).body).toEqual([
			{ phone_number: '+14155550101', trunkName: 'renamed' },
		]);
		expect((await h().admin('DELETE', '/orgs/org_acme/sip-writes')).body).toEqual({ cleared: 1 });
		expect((await h().admin('GET', '/orgs/org_acme/sip-writes')).body).toEqual([]);
	});
});
