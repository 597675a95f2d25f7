/**
 * Issue 51: SIP Update writes a number whose direction has no SIP login (an IP-authenticated trunk),
 * SIP Compare reports what Update would do (its refusal included) and never shows a password GET
 * masked as if it were a real one, and a Port expression yielding a list is refused, not "keep".
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import { SandboxFixture, everything } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeEach(async () => await fx.start());
afterEach(async () => await fx.stop());

const PHONE = '+14155550177';

/** Seeds PHONE with both directions, each with this login (user name, password). */
async function seed(login: IDataObject) {
	await fx.admin('POST', '/orgs/org_acme/seed', {
		sip: [
			{
				phone_number: PHONE,
				trunkName: 'ip-trunk',
				directions: ['inbound', 'outbound'].map((type) => ({
					type,
					sip_endpoint: `sip:${type}.pbx.example`,
					options: { port: 5060, transport: 'udp', secure_media: true, ...login },
				})),
			},
		],
	});
}

const writes = async () => await fx.admin<IDataObject[]>('GET', '/orgs/org_acme/sip-writes');

async function run(operation: string, parameters: INodeParameters, items?: InputItem[]) {
	return await runNode({
		parameters: {
			options: { maxAttempts: 1 },
			resource: 'sip',
			operation,
			phoneNumber: PHONE,
			...parameters,
		},
		credentials: fx.credentials(),
		items,
	});
}

const NO_LOGIN = { sip_username: '', sip_password: '' };

describe('a direction with no SIP login (user name and password both empty)', () => {
	it('Update renames the trunk, keeping both directions as they are', async () => {
		await seed(NO_LOGIN);
		const result = await run('update', { trunkName: 'renamed' });
		expect(result.error).toBeUndefined();
		expect(await writes()).toHaveLength(1);
		const state = await fx.state<{ sip: IDataObject[] }>();
		const after = state.sip.find((entry) => entry.phone_number === PHONE)!;
		expect(after.trunkName).toBe('renamed');
		expect((after.directions as Array<{ options: IDataObject }>).map((d) => d.options)).toEqual([
			{ port: 5060, transport: 'udp', secure_media: true, ...NO_LOGIN },
			{ port: 5060, transport: 'udp', secure_media: true, ...NO_LOGIN },
		]);
	});

	it('Update changes a port of one direction', async () => {
		await seed(NO_LOGIN);
		const result = await run('update', {
			directions: { inbound: { sipEndpoint: 'sip:inbound.pbx.example', port: '5070' } },
		});
		expect(result.error).toBeUndefined();
		const [write] = (await writes()) as Array<{ directions: Array<{ options: IDataObject }> }>;
		expect(write.directions.map((direction) => direction.options)).toEqual([
			{ port: 5070, transport: 'udp', secure_media: true, ...NO_LOGIN },
			{ port: 5060, transport: 'udp', secure_media: true, ...NO_LOGIN },
		]);
	});

	it('Compare of the same rename says what Update would send, no refusal', async () => {
		await seed(NO_LOGIN);
		const result = await run('compare', { trunkName: 'renamed' });
		expect(result.items[0].json).toMatchObject({
			status: 'drift',
			differences: [{ field: 'trunkName', current: 'ip-trunk', intended: 'renamed' }],
		});
	});

	it('an empty password beside a user name is still refused (a login without its secret)', async () => {
		await seed({ sip_username: 'trunk-user', sip_password: '' });
		const result = await run('update', { trunkName: 'renamed' });
		expect(result.error?.message).toMatch(/Inbound SIP Password/);
		expect(await writes()).toEqual([]);
	});

	it('a user name given for a direction whose password GET shows empty is refused too', async () => {
		await seed(NO_LOGIN);
		const result = await run('update', {
			directions: {
				inbound: { sipEndpoint: 'sip:inbound.pbx.example', sipUsername: 'new-user' },
			},
		});
		expect(result.error?.message).toMatch(/Inbound SIP Password/);
		expect(await writes()).toEqual([]);
	});
});

describe("SIP Compare reports what Update would do (Update's dry run)", () => {
	for (const password of ['********', '']) {
		it(`a kept password GET shows ${JSON.stringify(password)}: Compare reports Update's refusal, no body`, async () => {
			await seed({ sip_username: 'trunk-user', sip_password: password });
			const parameters = {
				directions: { inbound: { sipEndpoint: 'sip:new.pbx.example', sipPassword: 'new-pass-1' } },
			};
			const updated = await run('update', parameters);
			const compared = await run('compare', parameters);
			expect(updated.error?.message).toMatch(/Outbound SIP Password/);
			expect(compared.error).toBeUndefined();
			expect(compared.items[0].json).toMatchObject({
				phone_number: PHONE,
				status: 'would refuse',
				reason: expect.stringContaining(updated.error!.message),
				wouldSend: null,
				differences: null,
			});
			expect(await writes()).toEqual([]);
			expect(everything(compared)).not.toContain('new-pass-1');
		});
	}

	it('a password GET shows masked is shown as masked, not as a set password', async () => {
		await seed({ sip_username: 'trunk-user', sip_password: '********' });
		const result = await run('compare', {
			directions: {
				inbound: { sipEndpoint: 'sip:inbound.pbx.example', sipPassword: 'new-pass-1' },
				outbound: { sipEndpoint: 'sip:outbound.pbx.example', sipPassword: 'new-pass-2' },
			},
		});
		const out = result.items[0].json as { status: string; differences: IDataObject[] };
		expect(out.status).toBe('drift');
		const passwords = out.differences.filter((d) => d.field === 'options.sip_password');
		expect(passwords).toHaveLength(2);
		for (const difference of passwords) {
			expect(difference.current).not.toBe('(set, hidden)');
			expect(String(difference.current)).toMatch(/masked/);
			expect(difference.intended).toBe('(set, hidden)');
		}
		expect(JSON.stringify(result.items[0].json.current)).not.toContain('(set, hidden)');
		expect(everything(result)).not.toMatch(/new-pass-[12]/);
		const got = await run('get', {});
		const { directions } = got.items[0].json as { directions: Array<{ options: IDataObject }> };
		expect(directions.map((direction) => direction.options.sip_password)).toEqual([
			'(masked by Voice AI: not known)',
			'(masked by Voice AI: not known)',
		]);
	});

	it('with the error output, a refusal goes to the error output as "could not read" does', async () => {
		await seed({ sip_username: 'trunk-user', sip_password: '' });
		const result = await runNode({
			parameters: {
				options: { maxAttempts: 1 },
				resource: 'sip',
				operation: 'compare',
				phoneNumber: PHONE,
				trunkName: 'renamed',
			},
			credentials: fx.credentials(),
			settings: { onError: 'continueErrorOutput' },
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs[0]).toEqual([]);
		expect(JSON.stringify(result.outputs[1])).toMatch(/Inbound SIP Password/);
	});
});

describe('Port from an expression', () => {
	for (const [label, expression] of [
		['[]', '={{ [] }}'],
		['[[]]', '={{ [[]] }}'],
		['{}', '={{ {} }}'],
	]) {
		it(`yielding ${label} is refused naming the field and the item; nothing is written`, async () => {
			const result = await run('update', {
				phoneNumber: '+14155550101',
				directions: { inbound: { sipEndpoint: 'sip:pbx.acme-dental.example', port: expression } },
			});
			expect(result.error?.message).toMatch(/Inbound Port/);
			expect(result.error?.message).toMatch(/item 0/);
			expect(await writes()).toEqual([]);
		});
	}

	it('yielding nothing (null) or empty text keeps the current port', async () => {
		const result = await run('compare', {
			phoneNumber: '+14155550101',
			directions: {
				inbound: { sipEndpoint: 'sip:pbx.acme-dental.example', port: '={{ null }}' },
				outbound: { sipEndpoint: 'sip:pbx.acme-dental.example', port: '={{ "  " }}' },
			},
		});
		expect(result.error).toBeUndefined();
	});
});
