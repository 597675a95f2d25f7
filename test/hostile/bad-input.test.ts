/**
 * Hostile input for every operation of the Voice AI node: each invalid value is refused with a
 * NodeOperationError naming the field and the item, and nothing reaches the sandbox.
 *
 * A case's bad value goes in one of two ways:
 * - `literal`: typed into the parameter, so every item carries it and item 0 fails;
 * - otherwise through the expression `={{ $json.v }}`, with valid values in the items before it, so
 *   the failing item is `at` (default 2) and the value keeps its JSON type (42, {a:1}, [], null ...).
 */
import type { INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../support/engine';
import { SandboxFixture } from '../support/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

type Json = string | number | boolean | null | object;

const BASE: Record<string, INodeParameters> = {
	agentGetAll: { resource: 'agent', operation: 'getAll', returnAll: false, limit: 10 },
	agentCreate: {
		resource: 'agent',
		operation: 'create',
		phoneNumber: '+14155550111',
		agentName: 'Valid',
		task: 'Call',
		selectedVoice: 'maya',
	},
	chatbotUpdate: {
		resource: 'chatbot',
		operation: 'update',
		chatbotId: 'cb_acme_support',
		updateFields: {},
	},
	contactListNames: { resource: 'contact', operation: 'getListNames', returnAll: false, limit: 10 },
	sipGet: { resource: 'sip', operation: 'get', phoneNumber: '+14155550101' },
	sipUpdate: {
		resource: 'sip',
		operation: 'update',
		phoneNumber: '+14155550101',
		directions: {
			inbound: {
				sipEndpoint: 'sip:pbx.example.com',
				port: 5060,
				transport: 'udp',
				secureMedia: true,
			},
		},
	},
	sipDetach: {
		resource: 'sip',
		operation: 'detach',
		phoneNumber: '+14155550101',
		directions: ['outbound'],
	},
	trustProducts: {
		resource: 'trustProduct',
		operation: 'getAll',
		carrier: 'twilio',
		returnAll: true,
	},
	webhookSet: { resource: 'webhook', operation: 'set', webhookUrl: 'https://crm.example.com/hook' },
};
type Operation = keyof typeof BASE;

interface Case {
	op: Operation;
	/** Parameter path, e.g. `updateFields.header_color` or `directions.inbound.port`. */
	path: string;
	bad: Json;
	/** The valid value the items before the failing one get (default: the base value at `path`). */
	good?: Json;
	/** What the message must name, e.g. 'Header Color'. */
	label: string;
	literal?: boolean;
	at?: number;
	/** Extra parameters for this case (merged before `path` is set). */
	with?: INodeParameters;
	items?: InputItem[];
	/** Text that must NOT appear in the error (a secret of the wrong type). */
	notShown?: string;
}

function get(params: INodeParameters, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], params);
}

function set(params: INodeParameters, path: string, value: unknown): INodeParameters {
	const copy = structuredClone(params) as Record<string, unknown>;
	const keys = path.split('.');
	let node = copy;
	for (const key of keys.slice(0, -1)) {
		node[key] = { ...((node[key] as Record<string, unknown>) ?? {}) };
		node = node[key] as Record<string, unknown>;
	}
	node[keys[keys.length - 1]] = value;
	return copy as INodeParameters;
}

const bad = (
	op: Operation,
	path: string,
	label: string,
	values: Json[],
	extra: Partial<Case> = {},
): Case[] => values.map((value) => ({ op, path, label, bad: value, ...extra }));
const literal = (
	op: Operation,
	path: string,
	label: string,
	values: string[],
	extra: Partial<Case> = {},
): Case[] => bad(op, path, label, values, { literal: true, ...extra });

const PHONES_LITERAL = [
	'4155550101',
	'+1 415 555 0101',
	'+0123456',
	'+',
	'+1234567890123456',
	'+1-415-555-0101',
	'tel:+14155550101',
	'+14155550101;ext=2',
];
const PHONES_TYPED: Json[] = [
	14155550101,
	{ number: '+14155550101' },
	['+14155550101'],
	true,
	null,
	'',
];
const COLOURS = ['red', '#123', '#12345G', '112233', '#1122334', 'rgb(1,2,3)'];
const COLOUR_FIELDS: Array<[string, string]> = [
	['header_color', 'Header Color'],
	['background_color', 'Background Color'],
	['text_color', 'Text Color'],
	['user_message_color', 'User Message Color'],
	['input_bg_color', 'Input Background Color'],
];
const ENDPOINTS = [
	'pbx.example.com',
	'sip:alice@pbx.example.com',
	'sip:pbx.example.com:5060',
	'sips:pbx.example.com',
	'sip:',
	'sip:-pbx.example.com',
	'sip:pbx.example.com;transport=tcp',
	'sip:1.2.3',
	'sip:999.1.2.3',
	'sip:10.0.0.0.1',
	'http://pbx.example.com',
];
const image = (mimeType: string, at = 0): InputItem[] =>
	Array.from({ length: at + 1 }, (_, index) => ({
		json: {},
		binary: {
			data: { data: 'hello', mimeType: index === at ? mimeType : 'image/png', fileName: 'file' },
		},
	}));

const cases: Case[] = [
	// agent create: phone number, required text, types from expressions
	...literal('agentCreate', 'phoneNumber', 'Phone Number', PHONES_LITERAL),
	...bad('agentCreate', 'phoneNumber', 'Phone Number', PHONES_TYPED),
	...bad('agentCreate', 'agentName', 'Agent Name', [42, { a: 1 }, '   ', null, ['Reception']]),
	...bad('agentCreate', 'task', 'Task', [42, [1, 2], '', false]),
	...bad('agentCreate', 'selectedVoice', 'Voice', [7, '', { voice: 'maya' }]),
	// list operations: Return All and Limit
	...bad('agentGetAll', 'limit', 'Limit', [0, -1, 1.5, 'ten', { a: 1 }, 1_000_001]),
	...bad('agentGetAll', 'returnAll', 'Return All', ['yes', 1]),
	...bad('contactListNames', 'limit', 'Limit', [0, -5, 2.5, [3]]),
	...bad('contactListNames', 'returnAll', 'Return All', ['maybe', { all: true }]),
	...bad('trustProducts', 'limit', 'Limit', [0, 'lots'], { with: { returnAll: false }, good: 5 }),
	// trust products: the carrier is a path segment
	...literal('trustProducts', 'carrier', 'Carrier', [
		'twilio/../admin',
		'../twilio',
		'a b',
		'twilio?x=1',
		'.hidden',
		'%2e%2e',
		'twilio#frag',
	]),
	...bad('trustProducts', 'carrier', 'Carrier', [42, '', { carrier: 'twilio' }]),
	// chatbot update: colours, enums, booleans, text, ids, binaries
	// Only header_color has a stated form (#RRGGBB); the other colours go as written, but must be text.
	...literal('chatbotUpdate', 'updateFields.header_color', 'Header Color', COLOURS),
	...COLOUR_FIELDS.slice(1).flatMap(([name, label]) =>
		bad('chatbotUpdate', `updateFields.${name}`, label, [0x112233, { hex: '#FFFFFF' }], {
			good: '#FFFFFF',
		}),
	),
	...bad('chatbotUpdate', 'updateFields.template', 'Template', ['retro', 'Classic', 1, ''], {
		good: 'modern',
	}),
	...bad('chatbotUpdate', 'updateFields.bubble_icon', 'Bubble Icon', ['star', ['bot']], {
		good: 'bot',
	}),
	...bad(
		'chatbotUpdate',
		'updateFields.bubble_position',
		'Bubble Position',
		['top-left', 'bottom_right'],
		{ good: 'bottom-left' },
	),
	...bad('chatbotUpdate', 'updateFields.bubble_size', 'Bubble Size', ['huge', 3], {
		good: 'small',
	}),
	...bad('chatbotUpdate', 'updateFields.auto_open', 'Auto Open', ['yes', 1, 'TRUE', null], {
		good: true,
	}),
	...bad('chatbotUpdate', 'updateFields.show_branding', 'Show Branding', ['no', 0], {
		good: false,
	}),
	...bad('chatbotUpdate', 'updateFields.chatbotName', 'Chatbot Name', [42, { name: 'x' }], {
		good: 'Support',
	}),
	...bad('chatbotUpdate', 'updateFields.welcome_message', 'Welcome Message', [{ a: 1 }, ['hi']], {
		good: 'Hello',
	}),
	...bad('chatbotUpdate', 'updateFields.chatbot_title', 'Chatbot Title', [7], { good: 'Title' }),
	...bad('chatbotUpdate', 'chatbotId', 'Chatbot', [42, '', { id: 'cb_acme_support' }, null], {
		with: { updateFields: { chatbotName: 'x' } },
	}),
	{
		op: 'chatbotUpdate',
		path: 'updateFields.chatbotImageProperty',
		bad: 'logo',
		label: 'Chatbot Image (Binary Property)',
		literal: true,
		items: image('image/png'),
	},
	{
		op: 'chatbotUpdate',
		path: 'updateFields.chatbotImageProperty',
		bad: 'data',
		label: 'Chatbot Image (Binary Property)',
		literal: true,
		items: [{ json: {} }],
	},
	...bad(
		'chatbotUpdate',
		'updateFields.chatbotImageProperty',
		'Chatbot Image (Binary Property)',
		[5, ''],
		{ good: 'data', items: image('image/png', 2) },
	),
	// SIP get and detach
	...literal('sipGet', 'phoneNumber', 'Phone Number', PHONES_LITERAL.slice(0, 4)),
	...bad('sipGet', 'phoneNumber', 'Phone Number', [14155550101, null, { phone: '+1' }]),
	...literal('sipDetach', 'phoneNumber', 'Phone Number', ['555-0101']),
	...bad('sipDetach', 'phoneNumber', 'Phone Number', [42]),
	...bad('sipDetach', 'directions', 'Directions', [
		['sideways'],
		[],
		'up',
		42,
		{ type: 'inbound' },
		['inbound', 'Outbound'],
	]),
	// SIP update: endpoint, port, transport, secure media, credentials, config id, what to change
	...literal('sipUpdate', 'directions.inbound.sipEndpoint', 'Inbound SIP Endpoint', ENDPOINTS),
	...bad('sipUpdate', 'directions.outbound.sipEndpoint', 'Outbound SIP Endpoint', [42, '', null], {
		good: 'sip:10.0.0.5',
	}),
	...bad('sipUpdate', 'directions.inbound.port', 'Inbound Port', [
		0,
		65536,
		1.5,
		'abc',
		-1,
		{ port: 1 },
	]),
	// Any transport name is passed through (the spec shows udp only); a value that is not text is refused.
	...bad('sipUpdate', 'directions.inbound.transport', 'Inbound Transport', [
		1,
		{ name: 'udp' },
		['udp'],
	]),
	...bad('sipUpdate', 'directions.inbound.secureMedia', 'Inbound Secure Media', ['maybe', 1]),
	...bad(
		'sipUpdate',
		'directions.inbound.sipUsername',
		'Inbound SIP Username',
		[1234, { user: 'x' }],
		{ good: 'acme' },
	),
	{
		op: 'sipUpdate',
		path: 'directions.inbound.sipPassword',
		bad: 424242,
		good: 's3cret',
		label: 'Inbound SIP Password',
		notShown: '424242',
	},
	{
		op: 'sipUpdate',
		path: 'directions.inbound.sipPassword',
		bad: { secret: 'hunter2-canary' },
		good: 's3cret',
		label: 'Inbound SIP Password',
		notShown: 'hunter2-canary',
	},
	...literal('sipUpdate', 'additionalFields.uuid_config_id', 'Config ID', [
		'abc',
		'6f1c2a8e-0000-4000-8000-00000000000',
		'6f1c2a8e00004000800000000000000g',
		'{6f1c2a8e-0000-4000-8000-000000000000}',
	]),
	...bad('sipUpdate', 'additionalFields.uuid_config_id', 'Config ID', [12345], {
		good: '6f1c2a8e-0000-4000-8000-000000000000',
	}),
	...bad('sipUpdate', 'trunkName', 'Trunk Name', [99, ['main']], { good: 'acme-main' }),
	{ op: 'sipUpdate', path: 'directions', bad: {}, label: 'Directions', literal: true },
	...literal('sipUpdate', 'unlistedDirections', 'Directions Not Listed', ['drop']),
	// webhook
	...literal('webhookSet', 'webhookUrl', 'Webhook URL', [
		'ftp://example.com/x',
		'example.com',
		'javascript:alert(1)',
		'http://',
		'mailto:a@example.com',
		'file:///etc/passwd',
		'//example.com/hook',
	]),
	...bad('webhookSet', 'webhookUrl', 'Webhook URL', [
		42,
		{ url: 'https://example.com' },
		'',
		['https://example.com'],
	]),
	// expressions typed straight into the parameter, resolving to the wrong type
	...literal('agentCreate', 'agentName', 'Agent Name', ['={{ 42 }}', '={{ { a: 1 } }}']),
	...literal('webhookSet', 'webhookUrl', 'Webhook URL', ['={{ { url: "https://example.com" } }}']),
	...literal('chatbotUpdate', 'updateFields.header_color', 'Header Color', ['={{ 0x112233 }}']),
	...literal('sipUpdate', 'directions.inbound.port', 'Inbound Port', [
		'={{ "5060x" }}',
		'={{ [5060] }}',
	]),
	...literal('trustProducts', 'carrier', 'Carrier', ['={{ ["twilio"] }}']),
	...literal('contactListNames', 'limit', 'Limit', ['={{ { a: 1 } }}']),
	...literal('sipDetach', 'phoneNumber', 'Phone Number', ['={{ 14155550101 }}']),
	// options, read once per execution (item 0), on every operation
	...(Object.keys(BASE) as Operation[]).flatMap((op, index): Case[] => {
		const options: Array<[string, string, Json]> = [
			['concurrency', 'Concurrency', [0, 51, 'abc'][index % 3]],
			['maxAttempts', 'Max Attempts', [0, 11, 2.5][index % 3]],
			['timeoutSeconds', 'Timeout (Seconds)', [0, 601, 'soon'][index % 3]],
			['maxWaitSeconds', 'Max Retry Wait (Seconds)', [-1, 601, 'never'][index % 3]],
			['retryOnServerErrors', 'Retry on Server Errors', ['often', 42, {}][index % 3]],
		];
		return options.map(([name, label, value]) => ({
			op,
			path: `options.${name}`,
			label,
			bad: value,
			at: 0,
		}));
	}),
	...(Object.keys(BASE) as Operation[]).map(
		(op): Case => ({
			op,
			path: 'options.retryOnRateLimit',
			label: 'Retry on Rate Limit',
			bad: 'sometimes',
			at: 0,
		}),
	),
];

function build(testCase: Case): { parameters: INodeParameters; items: InputItem[]; at: number } {
	const base = { ...BASE[testCase.op], ...testCase.with };
	if (testCase.literal) {
		return {
			parameters: set(base, testCase.path, testCase.bad),
			items: testCase.items ?? [{ json: {} }],
			at: testCase.at ?? 0,
		};
	}
	const at = testCase.at ?? 2;
	const good = testCase.good !== undefined ? testCase.good : (get(base, testCase.path) as Json);
	const items: InputItem[] = Array.from({ length: at + 1 }, (_, index) => ({
		...testCase.items?.[index],
		json: { v: index === at ? testCase.bad : good },
	}));
	return { parameters: set(base, testCase.path, '={{ $json.v }}'), items, at };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = cases.map((testCase, index) => ({
	...testCase,
	name: `#${index + 1} ${testCase.op} ${testCase.path} = ${JSON.stringify(testCase.bad)}`,
}));

describe(`${cases.length} invalid inputs across every operation`, () => {
	it('covers every operation with at least 100 cases', () => {
		expect(cases.length).toBeGreaterThanOrEqual(100);
		expect(new Set(cases.map((testCase) => testCase.op))).toEqual(new Set(Object.keys(BASE)));
	});

	it.each(named)('$name', async (testCase) => {
		const { parameters, items, at } = build(testCase);
		const result = await fx.run(parameters, { items });
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(
			new RegExp(`^Invalid '${escape(testCase.label)}' in item ${at}: `),
		);
		expect(result.error?.context?.itemIndex).toBe(at);
		if (testCase.notShown)
			expect(
				JSON.stringify({ m: result.error?.message, d: result.error?.description }),
			).not.toContain(testCase.notShown);
		expect(await fx.requests()).toEqual([]);
	});
});

describe('with Continue On Fail, invalid items become error items and are never sent', () => {
	it('valid items around an invalid one are sent once each, in order', async () => {
		const result = await fx.run(
			{ resource: 'sip', operation: 'get', phoneNumber: '={{ $json.v }}' },
			{
				continueOnFail: true,
				items: [
					{ json: { v: '+14155550101' } },
					{ json: { v: 14155550102 } },
					{ json: { v: { a: 1 } } },
					{ json: { v: '+14155550103' } },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [item.pairedItem, item.json.phone_number ?? item.json.error]),
		).toEqual([
			[{ item: 0 }, '+14155550101'],
			[
				{ item: 1 },
				expect.stringMatching(/^Invalid 'Phone Number' in item 1: expected text, got a number/),
			],
			[
				{ item: 2 },
				expect.stringMatching(/^Invalid 'Phone Number' in item 2: expected text, got an object/),
			],
			[{ item: 3 }, '+14155550103'],
		]);
		expect((await fx.requests()).map((request) => request.path)).toEqual([
			'/sip/%2B14155550101',
			'/sip/%2B14155550103',
		]);
	});
});
