/**
 * The catalogue of the Voice AI node's operations: one entry per operation. It drives
 * - the wire test (test/node/catalogue.test.ts): each example runs in n8n's engine against a fresh
 *   sandbox, which must see exactly `sends`; `check` must hold for the output and `holds` for what
 *   the sandbox then holds (an operation that changes no data must leave it as it was);
 * - the end-to-end run of every operation (test/e2e/workflows.e2e.test.ts): each example runs the
 *   same way in a real n8n, the items coming from a Code node;
 * - the invalid-input test (test/hostile/bad-input.test.ts): every `invalid` case is refused before
 *   anything is sent, naming the field and the item;
 * - the error-output test (test/node/node-settings.test.ts): with On Error "Continue (using error
 *   output)", the `failing` item leaves on the error output and the others on the success output;
 * - the operations table of README.md (scripts/operations-table.ts, `npm run docs:operations`).
 * test/node/catalogue-description.test.ts checks it against the node's description.
 * Adding an operation: docs/adding-an-operation.md.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { InputItem } from './engine';
import { PNG, SVG } from './images';
import { SIP_DIRECTION } from './parameters';

type Json = string | number | boolean | null | object;

/** A request as the sandbox received it. */
export interface SentRequest {
	method: string;
	/** Path and query as sent, e.g. `/sip/%2B14155550101`. */
	url: string;
	/** A JSON body, parsed. */
	json?: unknown;
	/** A multipart/form-data body: its text fields, and its files as name, type and size. */
	form?: Record<string, string>;
	files?: Record<string, { filename: string; type: string; size: number }>;
}

/** A run's output items and error, from the engine harness or from a real n8n's execution data. */
export interface ExampleResult {
	items: Array<{ json: Record<string, unknown>; pairedItem?: unknown }>;
	error?: { message: string };
}

/** What the sandbox holds for the organization (its admin `state`), as far as the examples read it. */
export interface SandboxState {
	agents: Array<{ agentName: string; phoneNumber: string; selectedVoice: string; task: string }>;
	chatbots: Array<IDataObject & { id: string }>;
	sip: Array<{
		phone_number: string;
		trunkName: string;
		directions: Array<{ type: string; sip_endpoint: string; options: IDataObject }>;
	}>;
	webhook: string | null;
}

export interface Example {
	/** The node's parameters besides resource and operation. */
	parameters: INodeParameters;
	items?: InputItem[];
	/** Every request, in order (with several input items, in any order: items run concurrently). */
	sends: SentRequest[];
	/** Jest assertions on the run's output. */
	check(result: ExampleResult): void;
	/** Instead of `check` in the engine harness, where the operation needs what only n8n has. */
	checkInEngine?(result: ExampleResult): void;
	/** For an operation that changes data: Jest assertions on what the sandbox holds after the run. */
	holds?(state: SandboxState, result: ExampleResult): void;
}

/**
 * One invalid value. It goes in one of two ways:
 * - `literal`: typed into the parameter, so every item carries it and item 0 fails;
 * - otherwise through the expression `={{ $json.v }}`, with valid values in the items before it, so
 *   the failing item is `at` (default 2) and the value keeps its JSON type (42, {a:1}, [], null ...).
 */
export interface InvalidInput {
	/** Parameter path, e.g. `updateFields.header_color` or `directions.inbound.port`. */
	path: string;
	bad: Json;
	/** What the message must name, e.g. 'Header Color'. */
	label: string;
	/** The valid value the items before the failing one get (default: the base value at `path`). */
	good?: Json;
	literal?: boolean;
	at?: number;
	/** Extra parameters for this case (merged before `path` is set). */
	with?: INodeParameters;
	items?: InputItem[];
	/** Text that must NOT appear in the error (a secret of the wrong type). */
	notShown?: string;
}

/** Items of which one fails (a service error or an invalid value), for the error output. */
export interface FailingItem {
	/** Merged over the example's parameters. */
	parameters?: INodeParameters;
	items: InputItem[];
	/** The item that fails. */
	at: number;
	/** What its error's message must match, and its HTTP code when the service answered. */
	message: RegExp;
	httpCode?: string;
	/** In the engine harness, which has no n8n database, when more items fail there. */
	failsInEngine?: number[];
}

export interface CatalogueEntry {
	resource: string;
	operation: string;
	/** As the editor shows them (checked against the node's description). */
	resourceName: string;
	operationName: string;
	/** The request to Voice AI as the README shows it; null: the operation sends none. */
	request: string | null;
	/** For an operation that sends no request: what it works on instead. */
	instead?: string;
	changesData: boolean;
	/** after429: never repeated after a timeout or 5xx (the effect may have happened). */
	retried: 'always' | 'after429' | 'noRequest';
	/** One line for the README's table. */
	summary: string;
	example: Example;
	/** Valid parameters the invalid cases start from (default: the example's). */
	validBase?: INodeParameters;
	invalid: InvalidInput[];
	failing: FailingItem;
}

const bad = (path: string, label: string, values: Json[], extra: Partial<InvalidInput> = {}) =>
	values.map((value): InvalidInput => ({ path, label, bad: value, ...extra }));
const literal = (
	path: string,
	label: string,
	values: string[],
	extra: Partial<InvalidInput> = {},
) => bad(path, label, values, { literal: true, ...extra });

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
const OTHER_COLOURS: Array<[string, string]> = [
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
/** Items with a binary property `data`; item `at` has the given MIME type, the others a PNG. */
const image = (mimeType: string, at = 0): InputItem[] =>
	Array.from({ length: at + 1 }, (_, index) => ({
		json: {},
		binary: {
			data: { data: 'hello', mimeType: index === at ? mimeType : 'image/png', fileName: 'file' },
		},
	}));
/** The example's Chatbot Update fields that are text, as typed and as sent. */
const CHATBOT_TEXT_FIELDS = {
	chatbotName: 'Support',
	chatbot_title: 'Ask us',
	header_color: '#112233',
	background_color: '#FFFFFF',
	text_color: '#000000',
	user_message_color: '#0A0B0C',
	input_bg_color: '#EEEEEE',
	pathway_id: 'pw_1',
	welcome_message: 'Hello there',
	template: 'glassmorphism',
	bubble_icon: 'sparkles',
	bubble_position: 'bottom-left',
	bubble_size: 'large',
	input_placeholder: 'Ask anything',
	greeting_text: '',
};
/** Return All and Limit of a list operation. */
const listInvalid = (limits: Json[], returnAlls: Json[]) => [
	...bad('limit', 'Limit', [...limits, '0x10', '0b11', '1e2']),
	...bad('returnAll', 'Return All', returnAlls),
];
/** SIP Update and Compare read the same fields, and start their invalid cases from the same base. */
const sipIntentInvalid: InvalidInput[] = [
	...literal('directions.inbound.sipEndpoint', 'Inbound SIP Endpoint', ENDPOINTS),
	...bad('directions.outbound.sipEndpoint', 'Outbound SIP Endpoint', [42, '', null], {
		good: 'sip:10.0.0.5',
	}),
	...bad('directions.inbound.port', 'Inbound Port', [0, 65536, 1.5, 'abc', -1, { port: 1 }]),
	// Any transport name is passed through (the spec shows udp only); a value that is not text is refused.
	...bad('directions.inbound.transport', 'Inbound Transport', [1, { name: 'udp' }, ['udp']]),
	...bad('directions.inbound.secureMedia', 'Inbound Secure Media', ['maybe', 1]),
	...bad('directions.inbound.sipUsername', 'Inbound SIP Username', [1234, { user: 'x' }], {
		good: 'acme',
	}),
	...[
		{ bad: 424242, notShown: '424242' },
		{ bad: { secret: 'hunter2-canary' }, notShown: 'hunter2-canary' },
	].map(
		(value): InvalidInput => ({
			path: 'directions.inbound.sipPassword',
			label: 'Inbound SIP Password',
			good: 's3cret',
			...value,
		}),
	),
	...literal('additionalFields.uuid_config_id', 'Config ID', [
		'abc',
		'6f1c2a8e-0000-4000-8000-00000000000',
		'6f1c2a8e00004000800000000000000g',
		'{6f1c2a8e-0000-4000-8000-000000000000}',
	]),
	...bad('additionalFields.uuid_config_id', 'Config ID', [12345], {
		good: '6f1c2a8e-0000-4000-8000-000000000000',
	}),
	...bad('trunkName', 'Trunk Name', [99, ['main']], { good: 'acme-main' }),
	{ path: 'directions', bad: {}, label: 'Directions', literal: true },
	...literal('unlistedDirections', 'Directions Not Listed', ['drop']),
	...literal('directions.inbound.port', 'Inbound Port', [
		'={{ "5060x" }}',
		'={{ [5060] }}',
		'0x13C4',
		'0b1010',
		'1e3',
		'={{ "0x13C4" }}',
	]),
];

/** The two agents Agent Create's example creates, as sent. */
const ONBOARDING = [1, 2].map((n) => ({
	phoneNumber: `+1415555012${n + 2}`,
	agentName: `Onboarding ${n}`,
	task: "Confirm tomorrow's appointments",
	selectedVoice: 'maya',
}));

/** What SIP Update's example sends: the inbound direction it sets, and the outbound one it keeps. */
const SIP_UPDATE_BODY = {
	phone_number: '+14155550102',
	trunkName: 'acme-recall-2',
	directions: [
		{
			type: 'inbound',
			sip_endpoint: 'sip:pbx2.acme-dental.example',
			options: {
				port: 5062,
				transport: 'udp',
				secure_media: true,
				sip_username: 'acme',
				sip_password: 's3cret',
			},
		},
		{
			type: 'outbound',
			sip_endpoint: 'sip:pbx.acme-dental.example',
			options: {
				port: 5060,
				transport: 'tcp',
				secure_media: true,
				sip_username: 'acme-recall',
				sip_password: 'acme-recall-secret-outbound',
			},
		},
	],
};

const sipValidBase = { phoneNumber: '+14155550101', directions: { inbound: SIP_DIRECTION } };

const jsonOf = (result: ExampleResult) => result.items.map((item) => item.json);
const sipOf = (state: SandboxState, phoneNumber: string) =>
	state.sip.find((sip) => sip.phone_number === phoneNumber);

export const catalogue: CatalogueEntry[] = [
	{
		resource: 'agent',
		operation: 'create',
		resourceName: 'Agent',
		operationName: 'Create',
		request: 'POST /callback/standardCampaign',
		changesData: true,
		retried: 'after429',
		summary: 'Creates an agent on a phone number with a task and a voice',
		example: {
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				agentName: '={{ $json.name }}',
				task: "Confirm tomorrow's appointments",
				selectedVoice: 'maya',
			},
			items: [
				{ json: { phone: '+14155550123', name: 'Onboarding 1' } },
				{ json: { phone: '+14155550124', name: 'Onboarding 2' } },
			],
			sends: ONBOARDING.map((json) => ({
				method: 'POST',
				url: '/callback/standardCampaign',
				json,
			})),
			check(result) {
				expect(
					result.items.map((item) => [item.json.agentName, item.json.phoneNumber, item.pairedItem]),
				).toEqual([
					['Onboarding 1', '+14155550123', { item: 0 }],
					['Onboarding 2', '+14155550124', { item: 1 }],
				]);
			},
			holds(state) {
				expect(
					state.agents
						.filter((agent) => agent.agentName.startsWith('Onboarding '))
						.map(({ agentName, phoneNumber, task, selectedVoice }) => ({
							agentName,
							phoneNumber,
							task,
							selectedVoice,
						}))
						.sort((a, b) => a.agentName.localeCompare(b.agentName)),
				).toEqual(ONBOARDING);
			},
		},
		validBase: {
			phoneNumber: '+14155550111',
			agentName: 'Valid',
			task: 'Call',
			selectedVoice: 'maya',
		},
		invalid: [
			...literal('phoneNumber', 'Phone Number', PHONES_LITERAL),
			...bad('phoneNumber', 'Phone Number', PHONES_TYPED),
			...bad('agentName', 'Agent Name', [42, { a: 1 }, '   ', null, ['Reception']]),
			...bad('task', 'Task', [42, [1, 2], '', false]),
			...bad('selectedVoice', 'Voice', [7, '', { voice: 'maya' }]),
			// expressions typed straight into the parameter, resolving to the wrong type
			...literal('agentName', 'Agent Name', ['={{ 42 }}', '={{ { a: 1 } }}']),
		],
		failing: {
			items: [
				{ json: { phone: '+14155550123', name: 'Onboarding 1' } },
				{ json: { phone: '555-0101', name: 'Onboarding 2' } },
			],
			at: 1,
			message: /Phone Number/,
		},
	},
	{
		resource: 'agent',
		operation: 'getAll',
		resourceName: 'Agent',
		operationName: 'Get Many',
		request: 'GET /callback/standardCampaign',
		changesData: false,
		retried: 'always',
		summary: "Lists the organization's agents",
		example: {
			parameters: { returnAll: false, limit: 1 },
			sends: [{ method: 'GET', url: '/callback/standardCampaign' }],
			check(result) {
				expect(result.items).toEqual([
					{
						json: expect.objectContaining({ id: 'agent_acme_reception', agentName: 'Reception' }),
						pairedItem: { item: 0 },
					},
				]);
			},
		},
		invalid: listInvalid([0, -1, 1.5, 'ten', { a: 1 }, 1_000_001], ['yes', 1]),
		failing: {
			parameters: { limit: '={{ $json.limit }}' },
			items: [{ json: { limit: 1 } }, { json: { limit: 0 } }],
			at: 1,
			message: /Limit/,
		},
	},
	{
		resource: 'chatbot',
		operation: 'update',
		resourceName: 'Chatbot',
		operationName: 'Update',
		request: 'PATCH /chatbot/{id}',
		changesData: true,
		retried: 'always',
		summary: 'Restyles a website chatbot widget, images included',
		example: {
			parameters: {
				chatbotId: 'cb_acme_support',
				updateFields: {
					...CHATBOT_TEXT_FIELDS,
					auto_open: true,
					show_branding: false,
					chatbotImageProperty: 'logo',
					bubbleIconImageProperty: 'icon',
				},
			},
			items: [
				{
					json: {},
					binary: {
						logo: { data: PNG, mimeType: 'image/png', fileName: 'logo.png' },
						icon: { data: SVG, mimeType: 'image/svg+xml', fileName: 'bubble.svg' },
					},
				},
			],
			sends: [
				{
					method: 'PATCH',
					url: '/chatbot/cb_acme_support',
					// each field a form field, the switches as text
					form: { ...CHATBOT_TEXT_FIELDS, auto_open: 'true', show_branding: 'false' },
					files: {
						chatbot_image: { filename: 'logo.png', type: 'image/png', size: PNG.length },
						bubbleIconImage: { filename: 'bubble.svg', type: 'image/svg+xml', size: SVG.length },
					},
				},
			],
			check(result) {
				expect(result.items).toHaveLength(1);
				expect(result.items[0].json).toMatchObject({
					id: 'cb_acme_support',
					chatbotName: 'Support',
					header_color: '#112233',
					template: 'glassmorphism',
					auto_open: true,
					show_branding: false,
					greeting_text: '',
					chatbot_image: expect.stringMatching(/\.png$/),
					bubble_icon_image: expect.stringMatching(/\.svg$/),
				});
			},
			holds(state, result) {
				const { chatbot_image, bubble_icon_image } = result.items[0].json;
				expect(state.chatbots.find((chatbot) => chatbot.id === 'cb_acme_support')).toMatchObject({
					...CHATBOT_TEXT_FIELDS,
					auto_open: true,
					show_branding: false,
					chatbot_image,
					bubble_icon_image,
				});
			},
		},
		validBase: { chatbotId: 'cb_acme_support', updateFields: {} },
		invalid: [
			// header_color has a stated form (#RRGGBB); the other colours take any hex form (#RGB, #RGBA,
			// #RRGGBB, #RRGGBBAA, docs/service-assumptions.md) and nothing else.
			...literal('updateFields.header_color', 'Header Color', [...COLOURS, '={{ 0x112233 }}']),
			...OTHER_COLOURS.flatMap(([name, label]) =>
				bad(
					`updateFields.${name}`,
					label,
					[0x112233, { hex: '#FFFFFF' }, 'red', '#12345', '112233', 'rgb(1,2,3)', ''],
					{ good: '#FFFFFF' },
				),
			),
			...bad('updateFields.template', 'Template', ['retro', 'Classic', 1, ''], { good: 'modern' }),
			...bad('updateFields.bubble_icon', 'Bubble Icon', ['star', ['bot']], { good: 'bot' }),
			...bad('updateFields.bubble_position', 'Bubble Position', ['top-left', 'bottom_right'], {
				good: 'bottom-left',
			}),
			...bad('updateFields.bubble_size', 'Bubble Size', ['huge', 3], { good: 'small' }),
			...bad('updateFields.auto_open', 'Auto Open', ['yes', 1, 'TRUE', null], { good: true }),
			...bad('updateFields.show_branding', 'Show Branding', ['no', 0], { good: false }),
			...bad('updateFields.chatbotName', 'Chatbot Name', [42, { name: 'x' }], { good: 'Support' }),
			...bad('updateFields.welcome_message', 'Welcome Message', [{ a: 1 }, ['hi']], {
				good: 'Hello',
			}),
			...bad('updateFields.chatbot_title', 'Chatbot Title', [7], { good: 'Title' }),
			...bad(
				'chatbotId',
				'Chatbot',
				// a lone surrogate (text cut in the middle of an emoji) and an id past the 512 characters
				[42, '', { id: 'cb_acme_support' }, null, 'cb_\uD83D', 'c'.repeat(70_000)],
				{ with: { updateFields: { chatbotName: 'x' } } },
			),
			...[
				{ bad: 'logo', items: image('image/png') },
				{ bad: 'data', items: [{ json: {} }] },
				// names of Object.prototype's members are not binary fields of the item
				...['toString', 'constructor', '__proto__', 'hasOwnProperty'].map((name) => ({
					bad: name,
					items: image('image/png'),
				})),
				// a MIME type that would add a part header, one that is not type/subtype, an empty file
				{ bad: 'data', items: image('image/png\r\nX-Injected: yes') },
				{ bad: 'data', items: image('image png') },
				{
					bad: 'data',
					items: [{ json: {}, binary: { data: { data: '', mimeType: 'image/png' } } }],
				},
			].map(
				(value): InvalidInput => ({
					path: 'updateFields.chatbotImageProperty',
					label: 'Chatbot Image Field',
					literal: true,
					...value,
				}),
			),
			...bad('updateFields.chatbotImageProperty', 'Chatbot Image Field', [5, ''], {
				good: 'data',
				items: image('image/png', 2),
			}),
		],
		failing: {
			parameters: { chatbotId: '={{ $json.id }}', updateFields: { chatbot_title: 'Ask us' } },
			items: [{ json: { id: 'cb_acme_support' } }, { json: { id: 'cb_missing' } }],
			at: 1,
			message: /cb_missing/,
			httpCode: '404',
		},
	},
	{
		resource: 'contact',
		operation: 'getListNames',
		resourceName: 'Contact',
		operationName: 'Get List Names',
		request: 'GET /contacts/list-names',
		changesData: false,
		retried: 'always',
		summary: 'Lists the names of the contact lists',
		example: {
			parameters: { returnAll: false, limit: 2 },
			sends: [{ method: 'GET', url: '/contacts/list-names' }],
			check(result) {
				expect(jsonOf(result)).toEqual([{ name: 'Leads' }, { name: 'Patients' }]);
			},
		},
		invalid: [
			...listInvalid([0, -5, 2.5, [3]], ['maybe', { all: true }]),
			...literal('limit', 'Limit', ['={{ { a: 1 } }}']),
		],
		failing: {
			parameters: { limit: '={{ $json.limit }}' },
			items: [{ json: { limit: 2 } }, { json: { limit: 'two' } }],
			at: 1,
			message: /Limit/,
		},
	},
	{
		resource: 'conversation',
		operation: 'passOnce',
		resourceName: 'Conversation',
		operationName: 'Pass Once',
		request: null,
		instead: "n8n's database",
		changesData: false,
		retried: 'noRequest',
		summary: 'Passes each conversation once, across processes and restarts',
		// The engine harness has no n8n database: the store's absence is all it can show. That a new
		// conversation passes is shown on a real n8n (test/e2e/workflows), that it passes once too
		// (test/queue, test/e2e/crm-sync).
		example: {
			parameters: {},
			// Items run 5 at a time: the first goes to the store alone, the next two wait for its write and
			// go together, so conv_2 comes twice in one write and passes once.
			items: [
				{ json: { conversation_id: 'conv_1' } },
				{ json: { conversation_id: 'conv_2' } },
				{ json: { conversation_id: 'conv_2' } },
			],
			sends: [],
			check(result) {
				expect(result.items).toEqual([
					{ json: { conversation_id: 'conv_1' }, pairedItem: { item: 0 } },
					{ json: { conversation_id: 'conv_2' }, pairedItem: { item: 1 } },
				]);
			},
			checkInEngine(result) {
				expect(result.error?.message).toMatch(
					/^Could not read or record conversation "conv_1" in n8n's processed-data store/,
				);
			},
		},
		validBase: { conversationId: 'conv_1' },
		invalid: [
			...bad('conversationId', 'Conversation ID', ['', '   ', { id: 'conv_1' }, ['conv_1'], null], {
				good: 'conv_1',
			}),
			...bad('historySize', 'History Size', [0, -1, 1.5, 'many', 1_000_001], { good: 100 }),
		],
		failing: {
			items: [{ json: { conversation_id: 'conv_9' } }, { json: { conversation_id: '' } }],
			at: 1,
			message: /Conversation ID/,
			failsInEngine: [0, 1],
		},
	},
	{
		resource: 'sip',
		operation: 'compare',
		resourceName: 'SIP',
		operationName: 'Compare',
		request: 'GET /sip/{phone_number}',
		changesData: false,
		retried: 'always',
		summary: 'The body Update would send and its differences, writing nothing',
		example: {
			parameters: {
				phoneNumber: '+14155550103',
				directions: { outbound: { sipEndpoint: 'sip:pbx.acme-dental.example', port: 5060 } },
			},
			sends: [{ method: 'GET', url: '/sip/%2B14155550103' }],
			check(result) {
				expect(jsonOf(result)).toEqual([
					expect.objectContaining({
						phone_number: '+14155550103',
						status: 'drift',
						differences: [
							{ field: 'options.port', direction: 'outbound', current: 5080, intended: 5060 },
						],
					}),
				]);
			},
		},
		validBase: sipValidBase,
		invalid: [
			...literal('phoneNumber', 'Phone Number', PHONES_LITERAL.slice(4)),
			...bad('phoneNumber', 'Phone Number', [{ phone: '+1' }, '']),
			...sipIntentInvalid,
		],
		failing: {
			parameters: { phoneNumber: '={{ $json.phone }}' },
			items: [{ json: { phone: '+14155550103' } }, { json: { phone: '+14155550199' } }],
			at: 1,
			message: /\+14155550199/,
			httpCode: '404',
		},
	},
	{
		resource: 'sip',
		operation: 'detach',
		resourceName: 'SIP',
		operationName: 'Detach',
		request: 'POST /sip/detach2',
		changesData: true,
		retried: 'always',
		summary: "Detaches a number's inbound and/or outbound trunk",
		example: {
			parameters: { phoneNumber: '+14155550101', directions: ['outbound'] },
			sends: [
				{
					method: 'POST',
					url: '/sip/detach2',
					json: { phone_number: '+14155550101', directions: [{ type: 'outbound' }] },
				},
			],
			check(result) {
				expect(jsonOf(result)).toEqual([
					expect.objectContaining({ phone_number: '+14155550101', detached: ['outbound'] }),
				]);
			},
			holds(state) {
				expect(sipOf(state, '+14155550101')?.directions.map((direction) => direction.type)).toEqual(
					['inbound'],
				);
			},
		},
		invalid: [
			...literal('phoneNumber', 'Phone Number', ['555-0101', '={{ 14155550101 }}']),
			...bad('phoneNumber', 'Phone Number', [42]),
			...bad('directions', 'Directions', [
				['sideways'],
				[],
				'up',
				42,
				{ type: 'inbound' },
				['inbound', 'Outbound'],
			]),
			...bad('notFoundAsDetached', 'Not Found Counts as Detached', ['yes', 1, null], {
				good: false,
			}),
		],
		failing: {
			parameters: { phoneNumber: '={{ $json.phone }}' },
			// Only a 2xx is a success: a number the organization does not have fails, named.
			items: [{ json: { phone: '+14155550101' } }, { json: { phone: '+14155550199' } }],
			at: 1,
			message: /\+14155550199/,
			httpCode: '404',
		},
	},
	{
		resource: 'sip',
		operation: 'get',
		resourceName: 'SIP',
		operationName: 'Get',
		request: 'GET /sip/{phone_number}',
		changesData: false,
		retried: 'always',
		summary: "Reads a number's SIP trunk configuration",
		example: {
			parameters: { phoneNumber: '+14155550101' },
			sends: [{ method: 'GET', url: '/sip/%2B14155550101' }],
			check(result) {
				expect(result.items).toHaveLength(1);
				expect(result.items[0].json).toMatchObject({
					phone_number: '+14155550101',
					trunkName: 'acme-main',
					directions: [
						{ type: 'inbound', options: { sip_password: '(set, hidden)' } },
						{ type: 'outbound', options: { sip_password: '(set, hidden)' } },
					],
				});
			},
		},
		invalid: [
			...literal('phoneNumber', 'Phone Number', PHONES_LITERAL.slice(0, 4)),
			...bad('phoneNumber', 'Phone Number', [14155550101, null, { phone: '+1' }]),
		],
		failing: {
			parameters: { phoneNumber: '={{ $json.phone }}' },
			items: [{ json: { phone: '+14155550199' } }, { json: { phone: '+14155550101' } }],
			at: 0,
			message: /\+14155550199/,
			httpCode: '404',
		},
	},
	{
		resource: 'sip',
		operation: 'update',
		resourceName: 'SIP',
		operationName: 'Update',
		request: 'PATCH /sip/sip2',
		changesData: true,
		retried: 'always',
		summary: "Changes a number's SIP trunk, keeping what is not listed",
		example: {
			parameters: {
				phoneNumber: '+14155550102',
				trunkName: 'acme-recall-2',
				directions: {
					inbound: {
						sipEndpoint: 'sip:pbx2.acme-dental.example',
						port: 5062,
						transport: 'udp',
						secureMedia: 'on',
						sipUsername: 'acme',
						sipPassword: 's3cret',
					},
				},
			},
			// "Directions Not Listed: Keep" (the default): the current outbound direction is read and sent along.
			sends: [
				{ method: 'GET', url: '/sip/%2B14155550102' },
				{
					method: 'PATCH',
					url: '/sip/sip2',
					json: SIP_UPDATE_BODY,
				},
			],
			check(result) {
				expect(result.items).toHaveLength(1);
				expect(result.items[0].json).toMatchObject({
					phone_number: '+14155550102',
					sip: {
						trunkName: 'acme-recall-2',
						directions: expect.arrayContaining([
							expect.objectContaining({
								type: 'inbound',
								options: expect.objectContaining({ sip_password: '(set, hidden)' }),
							}),
						]),
					},
				});
				expect(JSON.stringify(result.items)).not.toContain('s3cret');
			},
			holds(state) {
				const { phone_number, ...written } = SIP_UPDATE_BODY;
				expect(sipOf(state, phone_number)).toMatchObject(written);
			},
		},
		validBase: sipValidBase,
		invalid: sipIntentInvalid,
		failing: {
			parameters: { phoneNumber: '={{ $json.phone }}' },
			items: [{ json: { phone: '+14155550102' } }, { json: { phone: '+14155550199' } }],
			at: 1,
			message: /\+14155550199/,
			httpCode: '404',
		},
	},
	{
		resource: 'trustProduct',
		operation: 'getAll',
		resourceName: 'Trust Product',
		operationName: 'Get Many',
		request: 'GET /agency/{carrier}/trust-products',
		changesData: false,
		retried: 'always',
		summary: 'Lists caller-identity trust products',
		example: {
			parameters: { carrier: 'twilio', returnAll: true },
			sends: [{ method: 'GET', url: '/agency/twilio/trust-products' }],
			check(result) {
				expect(result.items).toHaveLength(3);
				for (const { json } of result.items)
					expect(json).toMatchObject({
						sid: expect.any(String),
						friendly_name: expect.any(String),
					});
			},
		},
		invalid: [
			...bad('limit', 'Limit', [0, 'lots'], { with: { returnAll: false }, good: 5 }),
			// the carrier is a path segment
			...literal('carrier', 'Carrier', [
				'twilio/../admin',
				'../twilio',
				'a b',
				'twilio?x=1',
				'.hidden',
				'%2e%2e',
				'twilio#frag',
				'={{ ["twilio"] }}',
			]),
			...bad('carrier', 'Carrier', [42, '', { carrier: 'twilio' }, 't'.repeat(513)]),
		],
		failing: {
			parameters: { carrier: '={{ $json.carrier }}' },
			items: [{ json: { carrier: 'twilio' } }, { json: { carrier: 'telnyx' } }],
			at: 1,
			message: /telnyx|carrier/i,
			httpCode: '404',
		},
	},
	{
		resource: 'webhook',
		operation: 'set',
		resourceName: 'Webhook',
		operationName: 'Set',
		request: 'POST /webhook/insert-webhook',
		changesData: true,
		retried: 'always',
		summary: "Points the account's one webhook at a URL",
		example: {
			parameters: { webhookUrl: 'https://crm.example.com/hook' },
			sends: [
				{
					method: 'POST',
					url: '/webhook/insert-webhook',
					json: { webhook: 'https://crm.example.com/hook' },
				},
			],
			check(result) {
				expect(jsonOf(result)).toEqual([{ message: 'Webhook updated' }]);
			},
			holds(state) {
				expect(state.webhook).toBe('https://crm.example.com/hook');
			},
		},
		invalid: [
			...literal('webhookUrl', 'Webhook URL', [
				'ftp://example.com/x',
				'example.com',
				'javascript:alert(1)',
				'http://',
				'mailto:a@example.com',
				'file:///etc/passwd',
				'//example.com/hook',
				'={{ { url: "https://example.com" } }}',
			]),
			...bad('webhookUrl', 'Webhook URL', [
				42,
				{ url: 'https://example.com' },
				'',
				['https://example.com'],
			]),
		],
		failing: {
			parameters: { webhookUrl: '={{ $json.url }}' },
			items: [
				{ json: { url: 'ftp://crm.example.com/hook' } },
				{ json: { url: 'https://crm.example.com/hook' } },
			],
			at: 0,
			message: /Webhook URL/,
		},
	},
];

/** The Options every operation has, read once per execution (item 0): each invalid value on every operation. */
export const optionsInvalid: InvalidInput[] = [
	// text counts in decimal digits only: not hex, binary, octal or exponent notation
	...bad('options.concurrency', 'Concurrency', [0, 51, 'abc', '0x5', '1e1']),
	...bad('options.maxAttempts', 'Max Attempts', [0, 11, 2.5, '0b10', '0o3']),
	...bad('options.timeoutSeconds', 'Timeout (Seconds)', [0, 601, 'soon', '0x1E', '3e1']),
	...bad('options.maxWaitSeconds', 'Max Retry Wait (Seconds)', [-1, 601, 'never', '0x1', '1e1']),
	...bad('options.retryOnServerErrors', 'Retry on Server Errors', ['often', 42, {}]),
	...bad('options.retryOnRateLimit', 'Retry on Rate Limit', ['sometimes']),
].map((value) => ({ ...value, at: 0 }));

/** The node parameters of an entry's example. */
export function exampleParameters(entry: CatalogueEntry): INodeParameters {
	return { resource: entry.resource, operation: entry.operation, ...entry.example.parameters };
}

/** The valid parameters an entry's invalid cases start from. */
export function validParameters(entry: CatalogueEntry): INodeParameters {
	return {
		resource: entry.resource,
		operation: entry.operation,
		...(entry.validBase ?? entry.example.parameters),
	};
}

export const entryName = (entry: CatalogueEntry) => `${entry.resourceName} ${entry.operationName}`;
