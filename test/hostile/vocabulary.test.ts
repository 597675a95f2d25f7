/**
 * Hiding secrets changes no other data. Ordinary words and ids that contain `ct_` (contact_list,
 * Direct_Sales, product_x, ct_leads ...) go through every operation's output and error text in n8n's
 * engine byte for byte; SIP passwords that are parts of ordinary SIP data (1234, p, udp, sip) hide
 * only the sip_password fields; random strings with no held secret in them pass unchanged; a value
 * wholly equal to the key is hidden at any depth.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { Secrets } from '../../nodes/VoiceAi/transport/secrets';

import type { RunNodeResult } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import type { Loopback } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { SandboxFixture } from '../../harness/sandboxFixture';
import { TriggerWorkflow } from '../../harness/triggerWorkflow';
import {
	CT_TEXT,
	CT_URL,
	CT_WORDS,
	SHORT_SIP_PASSWORDS,
	vocabularySeed,
} from '../../harness/sandboxAdmin';
import {
	AGENT_CREATE,
	CHATBOT_UPDATE,
	DUPLICATE_AGENT,
	MISSING_CARRIER,
	MISSING_CHATBOT,
} from './vocabularyWrites';

const fx = new SandboxFixture();
let service: Loopback;

beforeAll(async () => {
	await fx.start();
	await fx.admin('POST', '/orgs/org_acme/seed', vocabularySeed());
	service = await startLoopback();
});
afterAll(async () => {
	await service?.close();
	await fx.stop();
});

const ONCE = { maxAttempts: 1 };
const HIDDEN = '(set, hidden)';

interface SipConfig {
	phone_number: string;
	trunkName: string;
	uuid_config_id: string;
	directions: Array<{ type: string; sip_endpoint: string; options: IDataObject }>;
}
interface State {
	agents: IDataObject[];
	chatbots: IDataObject[];
	contactLists: string[];
	sip: SipConfig[];
	trustProducts: IDataObject[];
}

const state = async () => await fx.state<State>();

/** A SIP configuration as the node shows it: every set sip_password hidden, nothing else changed. */
function hiddenPasswords<T>(value: T): T {
	return JSON.parse(
		JSON.stringify(value, (key, entry: unknown) =>
			key === 'sip_password' && entry !== '' && entry !== null ? HIDDEN : entry,
		),
	) as T;
}

async function sipOf(phone: string): Promise<SipConfig> {
	return (await state()).sip.find((entry) => entry.phone_number === phone)!;
}

const run = async (parameters: INodeParameters, continueOnFail = false) =>
	await fx.run({ options: ONCE, ...parameters }, { continueOnFail });

const outputOf = (result: RunNodeResult): IDataObject[] => {
	expect(result.error).toBeUndefined();
	return result.items.map((item) => item.json);
};

/** SIP Detach of one direction of `phoneNumber`: the output is the service's answer. */
async function expectDetached(phoneNumber: string, direction: string) {
	const [detached] = outputOf(
		await run({ resource: 'sip', operation: 'detach', phoneNumber, directions: [direction] }),
	);
	expect(detached).toEqual({
		message: 'Phone number detached',
		phone_number: phoneNumber,
		detached: [direction],
	});
}

describe('ordinary words with ct_ in the service answers: every output byte for byte', () => {
	it('Agent Get Many gives the agents exactly as the service holds them', async () => {
		const output = outputOf(await run({ resource: 'agent', operation: 'getAll', returnAll: true }));
		expect(output).toEqual((await state()).agents);
		expect(output.map((agent) => agent.id)).toEqual(
			expect.arrayContaining(['agent_contact_1', 'agent_direct_sales']),
		);
		expect(output.map((agent) => agent.agentName)).toEqual(
			expect.arrayContaining(['contact_list', 'Direct_Sales', 'ct_leads']),
		);
	});

	it('Contact Get List Names gives every list name as it is', async () => {
		const output = outputOf(
			await run({ resource: 'contact', operation: 'getListNames', returnAll: true }),
		);
		expect(output).toEqual((await state()).contactLists.map((name) => ({ name })));
		expect(output).toEqual(
			expect.arrayContaining(
				['ct_leads', 'contact_list', 'Direct_Sales', 'product_x'].map((name) => ({ name })),
			),
		);
	});

	it('Trust Product Get Many keeps names, e-mail addresses and URLs', async () => {
		const output = outputOf(
			await run({
				resource: 'trustProduct',
				operation: 'getAll',
				carrier: 'twilio',
				returnAll: true,
			}),
		);
		const product = output.find((entry) => entry.friendly_name === 'Direct_Sales');
		expect(product).toMatchObject({ email: 'contact_us@acme.example', url: CT_URL });
	});

	it('Chatbot Update and Agent Create give back what the service stored', async () => {
		const chatbot = outputOf(await run(CHATBOT_UPDATE));
		const stored = (await state()).chatbots.find((entry) => entry.id === 'cb_contact_us');
		expect(chatbot).toEqual([stored]);
		expect(chatbot[0]).toMatchObject({ webhook_url: CT_URL, welcome_message: CT_TEXT });

		const agent = outputOf(await run(AGENT_CREATE));
		expect(agent).toEqual([(await state()).agents.at(-1)]);
		expect(agent[0]).toMatchObject({ agentName: 'Connect_Team', task: CT_TEXT });
	});

	it('SIP Get, Compare, Update and Detach keep trunk names, endpoints and user names', async () => {
		const phoneNumber = '+14155550171';
		const before = await sipOf(phoneNumber);
		expect(outputOf(await run({ resource: 'sip', operation: 'get', phoneNumber }))).toEqual([
			hiddenPasswords(before),
		]);
		const directions = {
			inbound: { sipEndpoint: 'sip:contact.example.com', sipUsername: 'contact_user2' },
		};
		const [compared] = outputOf(
			await run({ resource: 'sip', operation: 'compare', phoneNumber, directions }),
		);
		expect(compared).toMatchObject({
			status: 'drift',
			current: hiddenPasswords(before),
			differences: [
				{
					field: 'options.sip_username',
					direction: 'inbound',
					current: 'contact_user',
					intended: 'contact_user2',
				},
			],
		});
		const [updated] = outputOf(
			await run({
				resource: 'sip',
				operation: 'update',
				phoneNumber,
				trunkName: 'select_project_trunk',
				directions,
			}),
		);
		expect(updated).toMatchObject({
			phone_number: phoneNumber,
			sip: hiddenPasswords(await sipOf(phoneNumber)),
		});
		expect((updated.sip as SipConfig).trunkName).toBe('select_project_trunk');
		await expectDetached(phoneNumber, 'inbound');
	});
});

describe('the list search of the editor', () => {
	it('shows agent names and ids with ct_ as the service sent them', async () => {
		const flow = new TriggerWorkflow({ baseUrl: fx.sandbox.baseUrl, apiKey: fx.acme.apiKey });
		const { results } = await flow.listSearch('searchAgents');
		expect(results).toEqual(
			expect.arrayContaining([
				{ name: 'contact_list (+14155550161)', value: 'agent_contact_1' },
				{ name: 'Direct_Sales (+14155550162)', value: 'agent_direct_sales' },
			]),
		);
	});
});

describe('ordinary words with ct_ in error text', () => {
	it.each([false, true])(
		'a 409 naming Direct_Sales and a 404 naming ct_leads keep their words (Continue On Fail %s)',
		async (continueOnFail) => {
			const texts: string[] = [];
			const cases: INodeParameters[] = [
				DUPLICATE_AGENT,
				MISSING_CHATBOT,
				{ ...MISSING_CHATBOT, chatbotId: 'cb_contact_us_old' },
				MISSING_CARRIER,
			];
			for (const parameters of cases) {
				const result = await run(parameters, continueOnFail);
				if (continueOnFail) {
					expect(result.error).toBeUndefined();
					texts.push(String(result.items[0].json.error));
				} else texts.push(String(result.error?.message));
			}
			expect(texts).toEqual([
				'Voice AI reported a conflict (409): an agent named "Direct_Sales" already exists',
				'Chatbot "ct_leads" was not found (404): chatbot not found',
				'Chatbot "cb_contact_us_old" was not found (404): chatbot not found',
				'Carrier "ct_leads" was not found (404): carrier not found',
			]);
		},
	);

	it("a Continue On Fail item is free text: it loses a token an earlier item's URL made the node hold", async () => {
		const result = await fx.run(
			{ resource: 'webhook', operation: 'set', webhookUrl: '={{ $json.url }}', options: ONCE },
			{
				continueOnFail: true,
				items: [
					{ json: { url: `${CT_URL}&token=Tok-Canary-123` } },
					{ json: { url: 'https://hooks example.com/contact_us?token=Tok-Canary-123' } },
				],
			},
		);
		const failed = String(result.items[1].json.error);
		// The refusal names the URL (its `contact_us` untouched) without the query that holds the token.
		expect(failed).toContain('"https://hooks example.com/contact_us" (its query not shown)');
		expect(JSON.stringify(result.items)).not.toContain('Tok-Canary-123');
	});

	it.each([
		['JSON 400', 400, true],
		['text/plain 404', 404, false],
		['JSON 409', 409, true],
		['text/plain 500', 500, false],
	] as const)(
		'a %s whose message holds the vocabulary shows it whole',
		async (_name, status, asJson) => {
			service.handle((_request, res) => {
				if (asJson)
					return json(res, status, { error: { status, message: CT_TEXT, field: 'contact_list' } });
				res.writeHead(status, { 'Content-Type': 'text/plain' });
				res.end(CT_TEXT);
			});
			for (const continueOnFail of [false, true]) {
				const result = await runNode({
					parameters: { resource: 'agent', operation: 'getAll', returnAll: true, options: ONCE },
					credentials: { voiceAiApi: { baseUrl: service.url, apiKey: fx.acme.apiKey } },
					continueOnFail,
				});
				const message = continueOnFail
					? String(result.items[0].json.error)
					: String(result.error?.message);
				const description = continueOnFail
					? String(result.items[0].json.description)
					: String(result.error?.description);
				expect(message).toContain(CT_TEXT);
				for (const word of CT_WORDS) expect(message).toContain(word);
				if (status === 400) expect(description).toContain("'contact_list'");
			}
		},
	);
});

describe('SIP passwords that are parts of ordinary SIP data', () => {
	it.each(SHORT_SIP_PASSWORDS)(
		'password "$password": Get, Compare, Update and Detach change nothing but the sip_password fields',
		async (entry) => {
			const phoneNumber = entry.phone_number;
			const before = await sipOf(phoneNumber);
			const [got] = outputOf(await run({ resource: 'sip', operation: 'get', phoneNumber }));
			expect(got).toEqual(hiddenPasswords(before));
			expect(got).toMatchObject({ phone_number: phoneNumber, trunkName: entry.trunkName });

			// The password typed into the node (so the node holds it), the endpoint changed.
			const directions = {
				inbound: { sipEndpoint: 'sip:pbx9.example.com', sipPassword: entry.password },
			};
			const [compared] = outputOf(
				await run({ resource: 'sip', operation: 'compare', phoneNumber, directions }),
			);
			const wanted = hiddenPasswords(before);
			wanted.directions[0].sip_endpoint = 'sip:pbx9.example.com';
			expect(compared).toEqual({
				phone_number: phoneNumber,
				status: 'drift',
				wouldSend: {
					phone_number: phoneNumber,
					directions: wanted.directions,
				},
				differences: [
					{
						field: 'sip_endpoint',
						direction: 'inbound',
						current: entry.sip_endpoint,
						intended: 'sip:pbx9.example.com',
					},
				],
				current: hiddenPasswords(before),
			});

			const [updated] = outputOf(
				await run({ resource: 'sip', operation: 'update', phoneNumber, directions }),
			);
			const after = await sipOf(phoneNumber);
			expect(after.directions[0].options.sip_password).toBe(entry.password);
			expect(updated).toEqual({
				message: 'SIP configuration updated',
				phone_number: phoneNumber,
				operations: [{ op: 'update', direction: 'inbound' }],
				sip: hiddenPasswords(after),
			});

			await expectDetached(phoneNumber, 'outbound');
		},
	);

	it('a changed password is a difference whose values are hidden, whatever else holds them', async () => {
		const phoneNumber = SHORT_SIP_PASSWORDS[2].phone_number;
		const [compared] = outputOf(
			await run({
				resource: 'sip',
				operation: 'compare',
				phoneNumber,
				directions: { inbound: { sipEndpoint: 'sip:pbx9.example.com', sipPassword: 'sip' } },
			}),
		);
		expect(compared.differences).toEqual([
			{ field: 'options.sip_password', direction: 'inbound', current: HIDDEN, intended: HIDDEN },
		]);
		expect(JSON.stringify(compared)).not.toMatch(/"sip_password":"(udp|sip)"/);
		expect(compared.current).toMatchObject({ trunkName: 'udp' });
	});
});

describe('answers the sandbox has no reason to give', () => {
	const getAll = async (body: unknown) => {
		service.handle((_request, res) => json(res, 200, body));
		return await runNode({
			parameters: { resource: 'agent', operation: 'getAll', returnAll: true, options: ONCE },
			credentials: { voiceAiApi: { baseUrl: service.url, apiKey: fx.acme.apiKey } },
		});
	};

	it('keys with ct_, __proto__ and constructor keys, ids and URLs stay as the service sent them', async () => {
		const text =
			'[{"id":"ag_contact_1","ct_leads":{"contact_list":["product_x","Direct_Sales"]},' +
			'"__proto__":{"exact_":"respect_"},"constructor":"connect_",' +
			`"links":{"self":"${CT_URL}"},"notes":"select_ project_ connect_"}]`;
		const output = outputOf(await getAll(JSON.parse(text)));
		expect(JSON.stringify(output)).toBe(text);
		expect(Object.getPrototypeOf(output[0])).toBe(Object.prototype);
	});

	it('the key as a whole value is hidden at any depth, and nothing around it changes', async () => {
		const key = fx.acme.apiKey;
		let deep: unknown = { apiKey: key, note: 'contact_list' };
		for (let level = 0; level < 30; level++) deep = { level, next: deep, list: [key, 'product_x'] };
		const [output] = outputOf(await getAll([{ id: 'ag_contact_1', deep }]));
		const shown = JSON.stringify(output);
		expect(shown).not.toContain(key);
		let expected: unknown = { apiKey: '***', note: 'contact_list' };
		for (let level = 0; level < 30; level++)
			expected = { level, next: expected, list: ['***', 'product_x'] };
		expect(output).toEqual({ id: 'ag_contact_1', deep: expected });
	});

	it('generated: 3,000 random strings with no held secret in them pass unchanged, as values and keys', async () => {
		const random = prng(20261126);
		const alphabet = 'ct_ct_CT_abcdxyz0129-./:?=&%+@ "\\\u00e9\u4e2d\ud83d\ude00*';
		const word = () =>
			Array.from(
				{ length: 1 + Math.floor(random() * 40) },
				() => alphabet[Math.floor(random() * alphabet.length)],
			).join('');
		const records = Array.from({ length: 3000 }, (_, index) => {
			const record: IDataObject = { id: `ag_${index}_${word()}` };
			record[word()] = word();
			record.nested = { [word()]: [word(), word()] };
			return record;
		});
		const output = outputOf(await getAll(records));
		expect(output).toHaveLength(3000);
		const changed = records.findIndex(
			(record, index) => JSON.stringify(output[index]) !== JSON.stringify(record),
		);
		expect(changed < 0 ? undefined : { sent: records[changed], output: output[changed] }).toBe(
			undefined,
		);
	});
});

/** mulberry32: a small seeded generator, so a failing case can be repeated. */
function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

describe('Secrets: free text and output values', () => {
	const HELD_KEY = 'ct_HeldKey0123456789abcdefghijKLMNOP';
	const OTHER_KEY = 'ct_Zq8rT2vX9yB4nM6kL1pW3sD5fG7hJ0aQ';
	const secrets = () => {
		const held = new Secrets();
		held.add(HELD_KEY);
		held.collect({ directions: [{ options: { sip_password: 'p' } }] });
		held.addFromUrl('https://crm.example.com/hook?token=Mango-River-77');
		return held;
	};

	it('free text: held secrets go wherever they appear, a key never held only as a whole key-shaped token', () => {
		const text =
			`Bearer ${HELD_KEY}; other key ${OTHER_KEY}, "${OTHER_KEY}" and ?key=${OTHER_KEY}&x=1; ` +
			`pbx.example token=Mango-River-77 ${CT_TEXT}`;
		const shown = secrets().redact(text);
		expect(shown).toBe(
			`Bearer ct_***; other key ct_***, "ct_***" and ?key=ct_***&x=1; ` +
				`***bx.exam***le token=*** ${CT_TEXT.replaceAll('p', '***')}`,
		);
		expect(new Secrets().redact(CT_TEXT)).toBe(CT_TEXT);
		expect(new Secrets().redact(`ct_leads ct_${'a'.repeat(19)} x${OTHER_KEY}`)).toBe(
			`ct_leads ct_${'a'.repeat(19)} x${OTHER_KEY}`,
		);
	});

	it('output values: the key (16 characters or more) is hidden wherever it stands, a short token only as a whole value; SIP passwords go by field', () => {
		const item = {
			key: HELD_KEY,
			bearer: `Bearer ${HELD_KEY}`,
			encoded: encodeURIComponent(`${HELD_KEY}`),
			token: 'Mango-River-77',
			inText: `token Mango-River-77 and ${HELD_KEY}`,
			otherKey: OTHER_KEY,
			password: 'p',
			transport: 'udp',
			[HELD_KEY]: CT_WORDS,
		};
		expect(secrets().redactForOutput(item)).toEqual({
			...item,
			key: '***',
			bearer: '***',
			encoded: '***',
			token: '***',
			inText: 'token Mango-River-77 and ***',
		});
		const clean = { list: CT_WORDS, nested: { url: CT_URL } };
		expect(secrets().redactForOutput(clean)).toBe(clean);
	});

	it('an error item is free text: held secrets go wherever they appear, ordinary words stay', () => {
		const item = {
			error: `Invalid 'Webhook URL': "https://hooks example.com/h?token=Mango-River-77" (Direct_Sales)`,
			description: `list ct_leads, key ${OTHER_KEY}`,
		};
		const held = new Secrets();
		held.addFromUrl('https://crm.example.com/hook?token=Mango-River-77');
		expect(held.redactForError(item)).toEqual({
			error: `Invalid 'Webhook URL': "https://hooks example.com/h?token=***" (Direct_Sales)`,
			description: 'list ct_leads, key ct_***',
		});
	});

	it('generated: 3,000 random texts without a held secret or a whole key-shaped token stay as they are', () => {
		const random = prng(7);
		const alphabet = 'ct_CT_abcxyzABC0129-./:?=&% "\\\u00e9*';
		const held = secrets();
		let checked = 0;
		while (checked < 3000) {
			const text = Array.from(
				{ length: Math.floor(random() * 60) },
				() => alphabet[Math.floor(random() * alphabet.length)],
			).join('');
			if (text.includes('p') || /(?<![\w-])ct_[\w-]{20,}/.test(text)) continue;
			checked++;
			expect({ text, shown: held.redact(text) }).toEqual({ text, shown: text });
		}
	});

	it('a key nested 40 levels deep in an output value, an error context or a chain of causes is hidden', () => {
		const held = secrets();
		let value: unknown = HELD_KEY;
		for (let level = 0; level < 40; level++) value = { level: [value] };
		expect(JSON.stringify(held.redactForOutput(value))).not.toContain(HELD_KEY);

		const root = new Error(`failed with ${HELD_KEY}`) as Error & { context?: unknown };
		root.context = { deep: value };
		let error: Error = root;
		for (let level = 0; level < 40; level++) {
			const cause = new Error(`cause ${level} ${HELD_KEY}`);
			(error as Error & { cause?: unknown }).cause = cause;
			error = cause;
		}
		(error as Error & { cause?: unknown }).cause = root; // a cycle must not hang
		held.redactError(root);
		let shown = '';
		for (let cause: unknown = root, level = 0; level < 42; level++) {
			const current = cause as Error & { cause?: unknown; context?: unknown };
			shown += `${current.message} ${current.stack} ${JSON.stringify(current.context ?? null)}`;
			cause = current.cause;
		}
		expect(shown).toContain('cause 39 ct_***');
		expect(shown).not.toContain(HELD_KEY);
	});

	it('a cyclic or shared output value is walked once and copied consistently', () => {
		const held = secrets();
		const shared = { key: HELD_KEY };
		const cyclic: Record<string, unknown> = { a: shared, b: shared };
		cyclic.self = cyclic;
		const out = held.redactForOutput(cyclic);
		expect(out).not.toBe(cyclic);
		expect(out.a).toEqual({ key: '***' });
		expect(out.a).toBe(out.b);
		expect(out.self).toBe(out);
		expect(cyclic.a).toEqual({ key: HELD_KEY });
	});
});

describe('secrets of a URL are found as the URL parser reads it, and only they are held', () => {
	it("a token holding '=' is held whole: its part before '=' is not a secret", () => {
		const held = new Secrets();
		held.collect({ webhookUrl: 'https://h.example.com/h?token=1=2' });
		expect(held.redactForOutput({ a: '1', b: '1=2' })).toEqual({ a: '1', b: '***' });
		expect(held.redact('Voice AI answered 401 for item 1; token 1=2')).toBe(
			'Voice AI answered 401 for item 1; token ***',
		);
	});

	it('user info of a URL the parser refuses is held, so its refusal cannot show the password', async () => {
		const held = new Secrets();
		held.collect('https://admin:hunter2@hooks example.com/h');
		expect(held.redact('"https://admin:hunter2@hooks example.com/h" is not a URL')).not.toContain(
			'hunter2',
		);
		const sentBefore = (await fx.requests()).length;
		const result = await fx.run({
			resource: 'webhook',
			operation: 'set',
			webhookUrl: 'https://admin:hunter2@hooks example.com/h',
		});
		// What a person sees of the error (the node's own parameters hold the URL as typed, as stored).
		const { error } = result;
		expect(error?.message).toContain(
			'The value (not shown: it holds a user name or password) is not an http',
		);
		expect(JSON.stringify([error?.message, error?.description, error?.stack])).not.toContain(
			'hunter2',
		);
		expect(await fx.requests()).toHaveLength(sentBefore);
	});

	it('a URL the parser reads without "//" (https:host/…) or with upper-case parameter names is a URL too', () => {
		const held = new Secrets();
		held.collect([
			'https:hooks.example.com/h?token=tok_SECRET_1',
			'https://h.example.com/?Token=Tok2x',
		]);
		expect(held.redact('echo tok_SECRET_1 and Tok2x')).toBe('echo *** and ***');
	});
});
