/**
 * SIP writes report only what holds (issue 40): two items on one number never interleave their read and
 * write, a Detach the service answers 409 is checked with a read, a wrong base URL path is not a missing
 * number, and a password GET did not return in clear is never written back.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness/engine';
import type { InputItem } from '../../harness/engine';
import type { SandboxState } from '../../harness/catalogue';
import { SandboxFixture } from '../../harness/sandboxFixture';
import { sipParameters } from './operationParameters';

const fx = new SandboxFixture();
beforeEach(async () => await fx.start());
afterEach(async () => await fx.stop());

async function directionsOf(phone: string) {
	const state = await fx.state<SandboxState>();
	return state.sip.find((entry) => entry.phone_number === phone)!.directions;
}

async function run(
	parameters: INodeParameters,
	options: { items?: InputItem[]; baseUrl?: string; continueOnFail?: boolean } = {},
) {
	return await runNode({
		parameters: { options: { maxAttempts: 1 }, ...parameters },
		credentials: fx.credentials(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
		items: options.items,
		continueOnFail: options.continueOnFail,
	});
}

const detach = (phoneNumber: string, fields: INodeParameters = {}) =>
	sipParameters('detach', phoneNumber, fields);

describe('several items on one number (default Concurrency)', () => {
	it("each item's change holds: one number's items read and write in input order", async () => {
		const [inbound, outbound] = await directionsOf('+14155550101');
		const result = await run(
			sipParameters('update', '+14155550101', {
				directions: {
					inbound: { sipEndpoint: inbound.sip_endpoint, port: '={{ $json.inboundPort }}' },
					outbound: { sipEndpoint: outbound.sip_endpoint, port: '={{ $json.outboundPort }}' },
				},
			}),
			{
				items: [
					{ json: { inboundPort: 5070, outboundPort: '' } },
					{ json: { inboundPort: '', outboundPort: 5071 } },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		const after = await directionsOf('+14155550101');
		expect(after.map((direction) => [direction.type, direction.options.port])).toEqual([
			['inbound', 5070],
			['outbound', 5071],
		]);
	});

	it("another number's item does not wait for them", async () => {
		await fx.admin('PUT', '/config', { latencyMs: 100 });
		const result = await run(
			sipParameters('update', '={{ $json.phone }}', { trunkName: '={{ $json.trunk }}' }),
			{
				items: [
					{ json: { phone: '+14155550101', trunk: 'first' } },
					{ json: { phone: '+14155550101', trunk: 'second' } },
					{ json: { phone: '+14155550102', trunk: 'other' } },
				],
			},
		);
		expect(result.error).toBeUndefined();
		const sent = (await fx.requests()).map(({ method, path }) => `${method} ${path}`);
		const secondRead = sent.lastIndexOf('GET /sip/%2B14155550101');
		expect(sent).toContain('GET /sip/%2B14155550102');
		expect(sent.indexOf('GET /sip/%2B14155550101')).toBeLessThan(secondRead);
		expect(sent.indexOf('GET /sip/%2B14155550102')).toBeLessThan(secondRead);
		expect(sent.indexOf('PATCH /sip/sip2')).toBeLessThan(secondRead);
		const state = await fx.state<{ sip: Array<{ phone_number: string; trunkName: string }> }>();
		expect(state.sip.filter((sip) => sip.phone_number !== '+14155550103')).toEqual([
			expect.objectContaining({ phone_number: '+14155550101', trunkName: 'second' }),
			expect.objectContaining({ phone_number: '+14155550102', trunkName: 'other' }),
		]);
	});
});

describe('SIP Detach reports success only when the wanted state holds', () => {
	it('409 while a listed direction is still attached: an error naming number, directions, the service and what GET found', async () => {
		await run(detach('+14155550101', { directions: ['outbound'] }));
		const result = await run(detach('+14155550101'));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/\+14155550101/);
		expect(result.error?.message).toMatch(/inbound, outbound/);
		expect(result.error?.message).toMatch(/409/);
		expect(result.error?.message).toMatch(
			/the outbound direction of \+14155550101 is not attached/,
		);
		expect(result.error?.description).toMatch(/still attached: inbound/);
		expect((await directionsOf('+14155550101')).map((direction) => direction.type)).toEqual([
			'inbound',
		]);
	});

	it('409 when GET shows none of the directions attached: success, saying what GET found', async () => {
		await run(detach('+14155550101'));
		const again = await run(detach('+14155550101'));
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({
			success: true,
			status: 409,
			phone_number: '+14155550101',
			directions: ['inbound', 'outbound'],
			attached: [],
			note: expect.stringMatching(/GET \/sip\/\+14155550101 shows neither direction attached/),
		});
	});

	it('409 when GET cannot be read: an error, never success', async () => {
		await run(detach('+14155550101', { directions: ['outbound'] }));
		await fx.admin('PUT', '/orgs/org_acme/sip-get-shape', { shape: 'named' });
		const result = await run(detach('+14155550101', { directions: ['outbound'] }));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/\+14155550101/);
		expect(result.error?.description).toMatch(/could not be read/);
	});
});

describe('a 404 the node cannot tie to the number', () => {
	const wrongPath = () => `${fx.credentials().voiceAiApi.baseUrl as string}/not-the-api`;

	it('SIP Get through a base URL path the service does not have names the base URL, not the number', async () => {
		const result = await run(
			{ resource: 'sip', operation: 'get', phoneNumber: '+14155550101' },
			{ baseUrl: wrongPath() },
		);
		expect(result.error?.message).toMatch(/base URL/i);
		expect(result.error?.message).not.toMatch(/was not found/);
	});

	it('"Not Found Counts as Detached" does not turn a wrong base URL into notFound items', async () => {
		const result = await run(detach('+14155550101', { notFoundAsDetached: true }), {
			baseUrl: wrongPath(),
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/base URL/i);
	});

	it('a number the service does not know is still notFound with the option on', async () => {
		const result = await run(detach('+14155550199', { notFoundAsDetached: true }));
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ notFound: true, status: 404 });
	});
});

describe('SIP Update "Keep" never writes back a password GET did not show in clear', () => {
	for (const password of ['****', '']) {
		it(`GET shows ${JSON.stringify(password)}: refused naming the field and the item, nothing written`, async () => {
			await fx.admin('POST', '/orgs/org_acme/seed', {
				sip: [
					{
						phone_number: '+14155550177',
						trunkName: 'masked',
						directions: ['inbound', 'outbound'].map((type) => ({
							type,
							sip_endpoint: 'sip:pbx.masked.example',
							options: {
								port: 5060,
								transport: 'udp',
								secure_media: true,
								sip_username: 'masked-user',
								sip_password: password,
							},
						})),
					},
				],
			});
			const result = await run(
				sipParameters('update', '+14155550177', {
					directions: {
						inbound: { sipEndpoint: 'sip:pbx2.masked.example', sipPassword: 'new-pass' },
					},
				}),
			);
			expect(result.error?.message).toMatch(/Outbound SIP Password/);
			expect(result.error?.message).toMatch(/item 0/);
			expect(result.error?.description).toMatch(/supply/i);
			expect(await fx.admin('GET', '/orgs/org_acme/sip-writes')).toEqual([]);
		});
	}
});

describe('SIP Detach of a number the service does not know (404)', () => {
	it('is an error naming the number, the directions and the service’s text', async () => {
		const result = await run(detach('+14155550199', { directions: ['outbound'] }));
		expect(result.items).toEqual([]);
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toMatch(
			/^SIP Detach of \+14155550199 \(outbound\): not found \(404\): phone number not found$/,
		);
		expect(result.error?.description).toMatch(/earlier attempt/);
	});
});
