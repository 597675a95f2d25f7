/**
 * SIP Get, Update and Compare in n8n's real engine against the sandbox: passwords hidden in output,
 * the trunk login of the Voice AI with SIP Trunk Login credential and expressions as password sources, "Keep" that re-sends every field
 * GET showed, refusal when GET's answer cannot be read, and the Compare dry run.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import type { SandboxState } from '../../harness/catalogue';
import { SandboxFixture, everything } from '../../harness/sandboxFixture';
import { SIP_DIRECTION } from '../../harness/parameters';
import { sipParameters } from './operationParameters';

// A fresh sandbox (demo seed) per test: the tests change the numbers' configurations.
const fx = new SandboxFixture();
beforeEach(async () => await fx.start());
afterEach(async () => await fx.stop());

type SipState = SandboxState['sip'][number];
type Direction = SipState['directions'][number];

async function sipOf(phone: string): Promise<SipState> {
	const state = await fx.state<SandboxState>();
	return state.sip.find((entry) => entry.phone_number === phone)!;
}

async function writes(): Promise<IDataObject[]> {
	return await fx.admin<IDataObject[]>('GET', '/orgs/org_acme/sip-writes');
}

/**
 * Runs the node with the sandbox's key. `login`: Authentication "API Key and SIP Trunk Login", the key
 * and this trunk login in one Voice AI with SIP Trunk Login credential.
 */
async function run(
	parameters: INodeParameters,
	options: { items?: InputItem[]; login?: { sipUsername: string; sipPassword: string } } = {},
) {
	const { voiceAiApi } = fx.credentials();
	return await runNode({
		parameters: {
			options: { maxAttempts: 1 },
			...(options.login ? { authentication: 'apiKeyAndSipLogin' } : {}),
			...parameters,
		},
		credentials: options.login
			? { voiceAiWithSipLoginApi: { ...voiceAiApi, ...options.login } }
			: { voiceAiApi },
		items: options.items,
	});
}

const update = (phoneNumber: string, fields: INodeParameters) =>
	sipParameters('update', phoneNumber, fields);

describe('SIP passwords in output items', () => {
	it('Get hides each set sip_password unless Show SIP Passwords is on', async () => {
		const hidden = await run({ resource: 'sip', operation: 'get', phoneNumber: '+14155550101' });
		expect(hidden.error).toBeUndefined();
		const directions = hidden.items[0].json.directions as Direction[];
		expect(directions.map((direction) => direction.options.sip_password)).toEqual([
			'(set, hidden)',
			'(set, hidden)',
		]);
		expect(directions.map((direction) => direction.options.sip_username)).toEqual([
			'acme-main',
			'acme-main',
		]);
		expect(everything(hidden)).not.toContain('acme-main-secret');

		const shown = await run({
			resource: 'sip',
			operation: 'get',
			phoneNumber: '+14155550101',
			showSipPasswords: true,
		});
		expect(
			(shown.items[0].json.directions as Direction[]).map(
				(direction) => direction.options.sip_password,
			),
		).toEqual(['acme-main-secret-inbound', 'acme-main-secret-outbound']);
	});

	it('Update hides the passwords the service echoes, typed or kept', async () => {
		const result = await run(
			update('+14155550102', {
				directions: {
					inbound: {
						sipEndpoint: 'sip:pbx.example.com',
						sipUsername: 'u1',
						sipPassword: 'typed-canary-71',
					},
				},
			}),
		);
		expect(result.error).toBeUndefined();
		const text = everything(result);
		expect(text).not.toContain('typed-canary-71');
		expect(text).not.toContain('acme-recall-secret');
		expect(JSON.stringify(result.items[0].json)).toContain('(set, hidden)');
		expect((await sipOf('+14155550102')).directions[0].options.sip_password).toBe(
			'typed-canary-71',
		);
	});
});

describe('SIP login sources', () => {
	it('the trunk login of the Voice AI with SIP Trunk Login credential fills every listed direction and never shows in output', async () => {
		const result = await run(
			update('+14155550103', {
				sipLogin: 'credential',
				unlistedDirections: 'detach',
				directions: {
					inbound: { sipEndpoint: 'sip:pbx.example.com' },
					outbound: { sipEndpoint: 'sip:pbx.example.com' },
				},
			}),
			{ login: { sipUsername: 'trunk-user', sipPassword: 'credential-canary-42' } },
		);
		expect(result.error).toBeUndefined();
		expect(everything(result)).not.toContain('credential-canary-42');
		const stored = await sipOf('+14155550103');
		expect(
			stored.directions.map((direction) => [
				direction.type,
				direction.options.sip_username,
				direction.options.sip_password,
			]),
		).toEqual([
			['inbound', 'trunk-user', 'credential-canary-42'],
			['outbound', 'trunk-user', 'credential-canary-42'],
		]);
	});

	it('SIP Login "credential" with Authentication "API Key" says what to change and sends nothing', async () => {
		const result = await run(
			update('+14155550103', {
				sipLogin: 'credential',
				directions: { inbound: { sipEndpoint: 'sip:pbx.example.com' } },
			}),
		);
		expect(result.error?.message).toMatch(
			/'SIP Login' in item 0: the SIP Trunk Login Credential needs Authentication "API Key and SIP Trunk Login"/,
		);
		expect(result.error?.description).toMatch(
			/Create a "Voice AI with SIP Trunk Login API" credential .* set Authentication to "API Key and SIP Trunk Login"/,
		);
		expect(await fx.requests()).toEqual([]);
	});

	it('a node saved with a separate SIP Trunk Login credential (two credentials) is refused with what to change, sending nothing', async () => {
		const result = await runNode({
			parameters: update('+14155550103', {
				sipLogin: 'credential',
				directions: { inbound: { sipEndpoint: 'sip:pbx.example.com' } },
			}),
			credentials: {
				...fx.credentials(),
				voiceAiSipLoginApi: { sipUsername: 'trunk-user', sipPassword: 'old-canary-17' },
			},
		});
		expect(result.error?.message).toMatch(/needs Authentication "API Key and SIP Trunk Login"/);
		expect(result.error?.description).toMatch(
			/"Voice AI SIP Trunk Login API" credential is no longer read/,
		);
		expect(everything(result)).not.toContain('old-canary-17');
		expect(await fx.requests()).toEqual([]);
	});

	it('an empty SIP password in the credential is refused before anything is sent', async () => {
		const result = await run(
			update('+14155550103', {
				sipLogin: 'credential',
				directions: { inbound: { sipEndpoint: 'sip:pbx.example.com' } },
			}),
			{ login: { sipUsername: 'trunk-user', sipPassword: '' } },
		);
		expect(result.error?.message).toMatch(/empty SIP user name or password/);
		expect(await fx.requests()).toEqual([]);
	});

	it('Authentication "API Key and SIP Trunk Login" authenticates every operation with that one credential', async () => {
		const result = await run(
			{ resource: 'sip', operation: 'get', phoneNumber: '+14155550101' },
			{ login: { sipUsername: 'trunk-user', sipPassword: 'unused-canary-3' } },
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.phone_number).toBe('+14155550101');
	});

	it("expressions take each number's login from its input item (bulk provisioning)", async () => {
		const items = [
			{ json: { phone: '+14155550101', user: 'bulk-1', password: 'bulk-canary-1' } },
			{ json: { phone: '+14155550102', user: 'bulk-2', password: 'bulk-canary-2' } },
		];
		const result = await run(
			update('={{ $json.phone }}', {
				directions: {
					outbound: {
						sipEndpoint: 'sip:pbx.acme-dental.example',
						sipUsername: '={{ $json.user }}',
						sipPassword: '={{ $json.password }}',
					},
				},
			}),
			{ items },
		);
		expect(result.error).toBeUndefined();
		const outputs = JSON.stringify(result.outputs);
		expect(outputs).not.toContain('bulk-canary-1');
		expect(outputs).not.toContain('bulk-canary-2');
		for (const [index, phone] of ['+14155550101', '+14155550102'].entries()) {
			const outbound = (await sipOf(phone)).directions.find(
				(direction) => direction.type === 'outbound',
			)!;
			expect([outbound.options.sip_username, outbound.options.sip_password]).toEqual([
				`bulk-${index + 1}`,
				`bulk-canary-${index + 1}`,
			]);
		}
	});
});

describe('SIP Update never writes on a guess', () => {
	it('"Keep" re-sends the untouched direction with every field GET returned, user name and password included', async () => {
		const before = await sipOf('+14155550101');
		const result = await run(
			update('+14155550101', {
				directions: { inbound: { sipEndpoint: 'sip:pbx9.acme-dental.example' } },
			}),
		);
		expect(result.error).toBeUndefined();
		const [body] = await writes();
		const outbound = (body.directions as Direction[]).find(
			(direction) => direction.type === 'outbound',
		);
		expect(outbound).toEqual(before.directions.find((direction) => direction.type === 'outbound'));
		expect(outbound?.options).toMatchObject({
			sip_username: 'acme-main',
			sip_password: 'acme-main-secret-outbound',
		});
	});

	it('changing one field of a direction keeps its other fields as GET showed them', async () => {
		// +…103 runs on port 5080 without secure media: a transport change must not reset either.
		const result = await run(
			update('+14155550103', {
				directions: { inbound: { sipEndpoint: 'sip:pbx.acme-dental.example', transport: 'tcp' } },
			}),
		);
		expect(result.error).toBeUndefined();
		const inbound = (await sipOf('+14155550103')).directions.find(
			(direction) => direction.type === 'inbound',
		)!;
		expect(inbound.options).toEqual({
			port: 5080,
			transport: 'tcp',
			secure_media: false,
			sip_username: 'acme-after-hours',
			sip_password: 'acme-after-hours-secret-inbound',
		});
		const [body] = await writes();
		expect((body.directions as Direction[]).map((direction) => direction.type)).toEqual([
			'inbound',
			'outbound',
		]);
	});

	it('a new direction gets the defaults the editor names (port 5060, udp, secure media on)', async () => {
		await run({
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550102',
			directions: ['outbound'],
		});
		await fx.admin('DELETE', '/orgs/org_acme/sip-writes');
		const result = await run(
			update('+14155550102', { directions: { outbound: { sipEndpoint: 'sip:10.0.0.9' } } }),
		);
		expect(result.error).toBeUndefined();
		const outbound = (await sipOf('+14155550102')).directions.find(
			(direction) => direction.type === 'outbound',
		)!;
		expect(outbound.options).toMatchObject({ port: 5060, transport: 'udp', secure_media: true });
	});

	it.each(['wss', 'sctp', 'TLS', 'udp+srtp'])(
		'transport %s is sent as written',
		async (transport) => {
			const result = await run(
				update('+14155550101', {
					directions: { inbound: { sipEndpoint: 'sip:pbx.acme-dental.example', transport } },
				}),
			);
			expect(result.error).toBeUndefined();
			const inbound = (await sipOf('+14155550101')).directions.find(
				(direction) => direction.type === 'inbound',
			)!;
			expect(inbound.options.transport).toBe(transport);
		},
	);

	describe.each([
		['data', 'writes the complete set'],
		['list', 'refuses'],
		['named', 'refuses'],
		['text', 'refuses'],
	])('GET /sip answered in the "%s" shape', (shape, expected) => {
		beforeEach(async () => {
			await fx.admin('PUT', '/orgs/org_acme/sip-get-shape', { shape });
		});

		it(`${expected}; it never detaches the direction not listed`, async () => {
			const before = await sipOf('+14155550101');
			const result = await run(
				update('+14155550101', {
					trunkName: 'acme-renamed',
					directions: { inbound: { sipEndpoint: 'sip:pbx7.acme-dental.example', port: 5070 } },
				}),
			);
			const after = await sipOf('+14155550101');
			expect(after.directions.map((direction) => direction.type)).toEqual(['inbound', 'outbound']);
			expect(after.directions[1]).toEqual(before.directions[1]);
			if (expected === 'refuses') {
				// A text answer already fails in the transport (a 2xx that is not JSON); either way nothing is written.
				expect(result.error?.message).toMatch(
					/^SIP Update of \+14155550101 wrote nothing: the current SIP configuration could not be read|not JSON/,
				);
				expect(await writes()).toEqual([]);
				expect(after).toEqual(before);
			} else {
				expect(result.error).toBeUndefined();
				expect(after.trunkName).toBe('acme-renamed');
				expect(after.directions[0]).toEqual({
					...before.directions[0],
					sip_endpoint: 'sip:pbx7.acme-dental.example',
					options: { ...before.directions[0].options, port: 5070 },
				});
			}
		});

		it('a rename alone under "Keep" re-sends both directions or refuses', async () => {
			const before = await sipOf('+14155550102');
			const result = await run(update('+14155550102', { trunkName: 'acme-recall-2' }));
			const after = await sipOf('+14155550102');
			expect(after.directions).toEqual(before.directions);
			if (expected === 'refuses') {
				expect(result.error?.message).toMatch(/wrote nothing|not JSON/);
				expect(await writes()).toEqual([]);
			} else {
				expect(result.error).toBeUndefined();
				expect(
					((await writes())[0].directions as Direction[]).map((direction) => direction.type),
				).toEqual(['inbound', 'outbound']);
			}
		});

		it('with both directions complete and "Detach", nothing needs reading: one write, exactly the listed set', async () => {
			// As the editor gives them: the port a string, Secure Media an option.
			const full = {
				...SIP_DIRECTION,
				port: '5060',
				secureMedia: 'on',
				sipUsername: 'u',
				sipPassword: 'complete-pw',
			};
			const result = await run(
				update('+14155550101', {
					unlistedDirections: 'detach',
					directions: { inbound: full, outbound: full },
				}),
			);
			expect(result.error).toBeUndefined();
			expect((await fx.requests()).map((request) => request.method)).toEqual(['PATCH']);
			expect(
				(await sipOf('+14155550101')).directions.map((direction) => direction.options.sip_password),
			).toEqual(['complete-pw', 'complete-pw']);
		});
	});
});

describe('SIP Compare (dry run)', () => {
	it('returns the body Update would send and the differences, and writes nothing', async () => {
		const before = await sipOf('+14155550103');
		const result = await run({
			resource: 'sip',
			operation: 'compare',
			phoneNumber: '+14155550103',
			directions: {
				inbound: {
					sipEndpoint: 'sip:pbx.acme-dental.example',
					port: '5060',
					transport: 'udp',
					secureMedia: 'on',
				},
			},
		});
		expect(result.error).toBeUndefined();
		expect(await writes()).toEqual([]);
		expect((await fx.requests()).map((request) => request.method)).toEqual(['GET']);
		expect(await sipOf('+14155550103')).toEqual(before);
		const out = result.items[0].json as {
			status: string;
			differences: IDataObject[];
			wouldSend: { directions: Direction[] };
		};
		expect(out.status).toBe('drift');
		expect(out.differences).toEqual([
			{ field: 'options.port', direction: 'inbound', current: 5080, intended: 5060 },
			{ field: 'options.secure_media', direction: 'inbound', current: false, intended: true },
		]);
		expect(out.wouldSend.directions.map((direction) => direction.type)).toEqual([
			'inbound',
			'outbound',
		]);
		expect(out.wouldSend.directions[1].options.sip_password).toBe('(set, hidden)');
		expect(everything(result)).not.toContain('acme-after-hours-secret');
	});

	it('says "in sync" when nothing would change', async () => {
		const result = await run({
			resource: 'sip',
			operation: 'compare',
			phoneNumber: '+14155550101',
			directions: { inbound: { sipEndpoint: 'sip:pbx.acme-dental.example' } },
		});
		expect(result.items[0].json).toMatchObject({ status: 'in sync', differences: [] });
	});

	it('a changed password shows as a difference without its value', async () => {
		const result = await run({
			resource: 'sip',
			operation: 'compare',
			phoneNumber: '+14155550101',
			directions: {
				inbound: { sipEndpoint: 'sip:pbx.acme-dental.example', sipPassword: 'compare-canary-9' },
			},
		});
		expect(result.items[0].json.differences).toEqual([
			{
				field: 'options.sip_password',
				direction: 'inbound',
				current: '(set, hidden)',
				intended: '(set, hidden)',
			},
		]);
		expect(everything(result)).not.toContain('compare-canary-9');
	});

	it.each(['list', 'named'])(
		'reports "could not read" for the %s shape, never "in sync"',
		async (shape) => {
			await fx.admin('PUT', '/orgs/org_acme/sip-get-shape', { shape });
			const result = await run({
				resource: 'sip',
				operation: 'compare',
				phoneNumber: '+14155550101',
				directions: { inbound: { sipEndpoint: 'sip:pbx.acme-dental.example' } },
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({
				status: 'could not read',
				wouldSend: null,
				differences: null,
			});
			expect(String(result.items[0].json.reason)).toMatch(
				/could not be read: the answer is (a list|an object with sip)/,
			);
			expect(everything(result)).not.toContain('acme-main-secret');
			expect(await writes()).toEqual([]);
		},
	);
});

describe('SIP Detach of a number the organization does not have (issue 34 part 5)', () => {
	const detach = (phoneNumber: string, extra: INodeParameters = {}): INodeParameters => ({
		resource: 'sip',
		operation: 'detach',
		phoneNumber,
		directions: ['outbound'],
		...extra,
	});

	it('a number the organization does not have (404) is an error naming the number', async () => {
		const result = await run(detach('+14155550199'));
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(/\+14155550199/);
		expect(result.error?.message).toMatch(/not found/);
		expect(result.error?.httpCode).toBe('404');
		expect(result.items).toEqual([]);
	});

	it('with Not Found Counts as Detached, a 404 gives an item that says it was not found', async () => {
		const result = await run(detach('+14155550199', { notFoundAsDetached: true }));
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([
			{
				detached: false,
				notFound: true,
				status: 404,
				phone_number: '+14155550199',
				directions: ['outbound'],
				note: expect.stringMatching(/^Voice AI answered 404 \(phone number not found\): /),
			},
		]);
	});

	it('a 409 (the number is there, the direction is not attached) stays "counts as detached"', async () => {
		await run(detach('+14155550101'));
		const again = await run(detach('+14155550101'));
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({ success: true, status: 409 });
		expect(again.items[0].json).not.toHaveProperty('notFound');
	});

	it('a 2xx stays the service’s answer, and the option changes nothing there', async () => {
		const result = await run(detach('+14155550101', { notFoundAsDetached: true }));
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ detached: ['outbound'] });
		expect(result.items[0].json).not.toHaveProperty('notFound');
	});

	it('with Continue On Fail, the unknown number is an error item between the detached ones', async () => {
		const result = await runNode({
			parameters: {
				options: { maxAttempts: 1 },
				...detach('={{ $json.phone }}'),
			},
			credentials: fx.credentials(),
			items: [
				{ json: { phone: '+14155550101' } },
				{ json: { phone: '+14155550199' } },
				{ json: { phone: '+14155550102' } },
			],
			continueOnFail: true,
		});
		expect(result.items.map((item) => Boolean(item.json.error))).toEqual([false, true, false]);
		expect(String(result.items[1].json.error)).toMatch(/\+14155550199/);
	});
});
