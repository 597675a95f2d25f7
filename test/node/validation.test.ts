import type { INodeParameters, INodeProperties } from 'n8n-workflow';

import type { InputItem } from '../../harness/engine';
import { PNG, SandboxFixture } from '../../harness/sandboxFixture';
import { SIP_DIRECTION } from '../../harness/parameters';
import { fieldsIn } from '../../nodes/VoiceAi/actions/validation';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const agent = {
	resource: 'agent',
	operation: 'create',
	phoneNumber: '+14155550111',
	agentName: 'Valid',
	task: 'Call',
	selectedVoice: 'maya',
};
const chatbot = (updateFields: INodeParameters) => ({
	resource: 'chatbot',
	operation: 'update',
	chatbotId: 'cb_acme_support',
	updateFields,
});
const sipUpdate = (inbound: INodeParameters, extra: INodeParameters = {}) => ({
	resource: 'sip',
	operation: 'update',
	phoneNumber: '+14155550101',
	directions: { inbound },
	...extra,
});

interface Case {
	name: string;
	parameters: INodeParameters;
	field: RegExp;
	items?: InputItem[];
	credentials?: Record<string, string>;
}

const cases: Case[] = [
	{
		name: 'phone number without +',
		parameters: { ...agent, phoneNumber: '4155550101' },
		field: /'Phone Number'.*E\.164/,
	},
	{
		name: 'phone number with spaces',
		parameters: { ...agent, phoneNumber: '+1 415 555 0101' },
		field: /'Phone Number'/,
	},
	{
		name: 'phone number as a number from an expression',
		parameters: { ...agent, phoneNumber: '={{ 14155550101 }}' },
		field: /'Phone Number'.*expected text, got a number/,
	},
	{
		name: 'empty agent name',
		parameters: { ...agent, agentName: '   ' },
		field: /'Agent Name'.*required/,
	},
	{
		name: 'empty task',
		parameters: { ...agent, task: '={{ $json.missing }}' },
		field: /'Task'.*required/,
	},
	{
		name: 'agent name as an object from an expression',
		parameters: { ...agent, agentName: '={{ { a: 1 } }}' },
		field: /'Agent Name'.*expected text/,
	},
	{ name: 'empty voice', parameters: { ...agent, selectedVoice: '={{ "" }}' }, field: /'Voice'/ },
	{
		name: 'colour name instead of #RRGGBB',
		parameters: chatbot({ header_color: 'red' }),
		field: /'Header Color'.*#RRGGBB/,
	},
	{
		name: 'unknown template from an expression',
		parameters: chatbot({ template: '={{ "retro" }}' }),
		field: /'Template'.*one of classic, glassmorphism, modern/,
	},
	{
		name: 'unknown bubble size',
		parameters: chatbot({ bubble_size: '={{ "huge" }}' }),
		field: /'Bubble Size'/,
	},
	{
		name: 'boolean field given "yes"',
		parameters: chatbot({ auto_open: '={{ "yes" }}' }),
		field: /'Auto Open'.*true or false/,
	},
	{
		name: 'empty chatbot id',
		parameters: { ...chatbot({ chatbotName: 'x' }), chatbotId: '={{ $json.id }}' },
		field: /'Chatbot'.*required/,
	},
	{
		name: 'missing binary property',
		parameters: chatbot({ chatbotImageProperty: 'logo' }),
		field: /'Chatbot Image Field'.*no binary field "logo"/,
	},
	{
		name: 'SIP get with a bad number',
		parameters: { resource: 'sip', operation: 'get', phoneNumber: '+0123' },
		field: /'Phone Number'/,
	},
	{
		name: 'SIP endpoint without sip:',
		parameters: sipUpdate({ ...SIP_DIRECTION, sipEndpoint: 'pbx.example.com' }),
		field: /'Inbound SIP Endpoint'.*SIP URI/,
	},
	{
		name: 'SIP endpoint with a user part',
		parameters: sipUpdate({ ...SIP_DIRECTION, sipEndpoint: 'sip:alice@pbx.example.com' }),
		field: /'Inbound SIP Endpoint'/,
	},
	{
		name: 'SIP port out of range',
		parameters: sipUpdate({ ...SIP_DIRECTION, port: 70000 }),
		field: /'Inbound Port'.*65535/,
	},
	{
		name: 'SIP transport that is not text',
		parameters: sipUpdate({ ...SIP_DIRECTION, transport: '={{ 6 }}' }),
		field: /'Inbound Transport'.*expected text/,
	},
	{
		name: 'config id that is not a UUID',
		parameters: sipUpdate(SIP_DIRECTION, { additionalFields: { uuid_config_id: 'abc' } }),
		field: /'Config ID'.*UUID/,
	},
	{
		name: 'SIP update with nothing to change',
		parameters: { resource: 'sip', operation: 'update', phoneNumber: '+14155550101' },
		field: /'Directions'.*nothing to update/,
	},
	{
		name: 'detach of an unknown direction',
		parameters: {
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550101',
			directions: '={{ ["sideways"] }}',
		},
		field: /'Directions'.*inbound, outbound/,
	},
	{
		name: 'detach of no direction',
		parameters: {
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550101',
			directions: '={{ [] }}',
		},
		field: /'Directions'/,
	},
	{
		name: 'carrier with a slash',
		parameters: {
			resource: 'trustProduct',
			operation: 'getAll',
			carrier: 'twilio/../admin',
			returnAll: true,
		},
		field: /'Carrier'/,
	},
	{
		name: 'webhook that is not http(s)',
		parameters: { resource: 'webhook', operation: 'set', webhookUrl: 'ftp://example.com/x' },
		field: /'Webhook URL'.*http/,
	},
	{
		name: 'webhook that is not a URL',
		parameters: { resource: 'webhook', operation: 'set', webhookUrl: 'example.com' },
		field: /'Webhook URL'/,
	},
	{
		name: 'limit of zero',
		parameters: { resource: 'contact', operation: 'getListNames', returnAll: false, limit: 0 },
		field: /'Limit'/,
	},
	{
		name: 'concurrency above the bound',
		parameters: {
			resource: 'contact',
			operation: 'getListNames',
			returnAll: true,
			options: { concurrency: 500 },
		},
		field: /'Concurrency'.*1 to 50/,
	},
	{
		name: 'base URL without a scheme',
		parameters: { resource: 'contact', operation: 'getListNames', returnAll: true },
		credentials: { baseUrl: 'api.example.com' },
		field: /base URL/,
	},
	{
		name: 'API key without ct_',
		parameters: { resource: 'contact', operation: 'getListNames', returnAll: true },
		credentials: { apiKey: 'sk_live_123' },
		field: /does not start with ct_/,
	},
];

describe('values the spec leaves open are sent, and the sandbox accepts them', () => {
	const chatbotState = async (id: string) =>
		(await fx.state<{ chatbots: Array<Record<string, unknown>> }>()).chatbots.find(
			(c) => c.id === id,
		)!;

	it('colours other than header_color in any hex form', async () => {
		const result = await fx.run(
			chatbot({ text_color: '#123', background_color: '#11223344', input_bg_color: '#abcd' }),
		);
		expect(result.error).toBeUndefined();
		expect(await chatbotState('cb_acme_support')).toMatchObject({
			text_color: '#123',
			background_color: '#11223344',
			input_bg_color: '#abcd',
		});
	});

	it('an empty Pathway ID clears the pathway', async () => {
		await fx.run(chatbot({ pathway_id: 'pw_7' }));
		expect((await chatbotState('cb_acme_support')).pathway_id).toBe('pw_7');
		const result = await fx.run(chatbot({ pathway_id: '' }));
		expect(result.error).toBeUndefined();
		expect((await chatbotState('cb_acme_support')).pathway_id).toBeNull();
	});

	it('an update with no field sends an empty PATCH and returns the chatbot as it stands', async () => {
		const result = await fx.run(chatbot({}));
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.id)).toEqual(['cb_acme_support']);
		expect((await fx.requests()).map((request) => [request.method, request.status])).toEqual([
			['PATCH', 200],
		]);
	});

	it('an image its source calls application/octet-stream', async () => {
		const result = await fx.run(chatbot({ bubbleIconImageProperty: 'data' }), {
			items: [
				{
					json: {},
					binary: { data: { data: PNG, mimeType: 'application/octet-stream', fileName: 'icon' } },
				},
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.bubble_icon_image).toMatch(/\.png$/);
		const [upload] = (
			await fx.state<{ uploads: Array<{ field: string; size: number }> }>()
		).uploads.slice(-1);
		expect(upload).toMatchObject({ field: 'bubbleIconImage', size: PNG.length });
	});

	it('an empty Chatbot Name goes to the service, whose refusal is shown', async () => {
		const result = await fx.run(chatbot({ chatbotName: '' }));
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(/chatbotName must not be empty/);
		expect((await fx.requests()).map((request) => request.status)).toEqual([400]);
	});
});

/** The four colours the spec calls "hex colour" without a form; header_color alone is pinned to #RRGGBB. */
const FREE_HEX_COLOURS: Array<[string, string]> = [
	['background_color', 'Background Color'],
	['text_color', 'Text Color'],
	['user_message_color', 'User Message Color'],
	['input_bg_color', 'Input Background Color'],
];

describe('colour fields: every hex form is sent, anything else is refused before sending', () => {
	const chatbotState = async () =>
		(await fx.state<{ chatbots: Array<Record<string, unknown>> }>()).chatbots.find(
			(c) => c.id === 'cb_acme_support',
		)!;

	it.each(FREE_HEX_COLOURS)('%s: "red" in item 2 is refused, naming %s', async (name, label) => {
		const result = await fx.run(chatbot({ [name]: '={{ $json.colour }}' }), {
			items: [
				{ json: { colour: '#abc' } },
				{ json: { colour: '#AABBCC' } },
				{ json: { colour: 'red' } },
			],
		});
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(
			`Invalid '${label}' in item 2: "red" is not a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA)`,
		);
		expect(result.error?.context?.itemIndex).toBe(2);
		expect(await fx.requests()).toEqual([]);
	});

	it.each(
		FREE_HEX_COLOURS.flatMap(([name, label]) =>
			[
				'',
				' ',
				'#12',
				'#12345',
				'#1234567',
				'112233',
				'#GGGGGG',
				'rgb(1,2,3)',
				'#abc;x',
				'##abc',
				'#ａｂｃ',
			].map((value) => ({ name, label, value })),
		),
	)('$name: $value is refused', async ({ name, label, value }) => {
		const result = await fx.run(chatbot({ [name]: value }));
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(new RegExp(`^Invalid '${label}' in item 0: `));
		expect(await fx.requests()).toEqual([]);
	});

	it.each(['#abc', '#ABCD', '#a1B2c3', '#AABBCCDD'])(
		'%s is sent as written in every colour field but header_color',
		async (value) => {
			const fields = Object.fromEntries(FREE_HEX_COLOURS.map(([name]) => [name, value]));
			const result = await fx.run(chatbot(fields));
			expect(result.error).toBeUndefined();
			expect(await chatbotState()).toMatchObject(fields);
		},
	);

	it.each(['#abc', '#AABBCCDD', 'red'])(
		'header_color stays #RRGGBB: %j is refused',
		async (value) => {
			const result = await fx.run(chatbot({ header_color: value }));
			expect(result.error?.message).toBe(
				`Invalid 'Header Color' in item 0: ${JSON.stringify(value)} is not a #RRGGBB colour`,
			);
			expect(await fx.requests()).toEqual([]);
		},
	);
});

describe('invalid input is refused before anything is sent', () => {
	it.each(cases)('$name', async ({ parameters, field, items, credentials }) => {
		const result = await fx.run(parameters, { items, credentials });
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(field);
		if (!credentials) expect(result.error?.message).toMatch(/in item 0/);
		expect(await fx.requests()).toEqual([]);
	});

	it('one invalid item among valid ones stops the whole batch before any request', async () => {
		const result = await fx.run(
			{ ...agent, phoneNumber: '={{ $json.phone }}', agentName: '={{ $json.name }}' },
			{
				items: [
					{ json: { phone: '+14155550141', name: 'A' } },
					{ json: { phone: '+14155550142', name: 'B' } },
					{ json: { phone: '555-0143', name: 'C' } },
				],
			},
		);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(/'Phone Number' in item 2/);
		expect(result.error?.context?.itemIndex).toBe(2);
		expect(await fx.requests()).toEqual([]);
	});

	it('n8n itself refuses a required parameter left empty, before the node runs', async () => {
		const result = await fx.run({ ...agent, task: '' });
		expect(result.error?.message).toMatch(/Parameter "Task" is required/);
		expect(await fx.requests()).toEqual([]);
	});

	it('a SIP password of the wrong type is not echoed in the message', async () => {
		const result = await fx.run(sipUpdate({ ...SIP_DIRECTION, sipPassword: '={{ 424242 }}' }));
		expect(result.error?.message).toMatch(/'Inbound SIP Password'.*expected text, got a number$/);
		expect(`${result.error?.message} ${result.error?.description}`).not.toContain('424242');
	});
});

describe('values that passed the checks and failed late or went out wrong (issue 34 part 3)', () => {
	const refusedBeforeSending = async (
		parameters: INodeParameters,
		message: RegExp,
		items?: InputItem[],
	) => {
		const result = await fx.run(parameters, { items });
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(message);
		expect(await fx.requests()).toEqual([]);
		return result;
	};
	const image = (binary: Record<string, unknown>): InputItem[] => [
		{
			json: {},
			binary: { data: { data: PNG, mimeType: 'image/png', fileName: 'logo.png', ...binary } },
		},
	];

	it('a Chatbot ID cut in the middle of an emoji (a lone surrogate) is refused by name', async () => {
		await refusedBeforeSending(
			{ ...chatbot({ chatbotName: 'x' }), chatbotId: '={{ "cb_😀".slice(0, 4) }}' },
			/^Invalid 'Chatbot' in item 0: .*half of a character/,
		);
	});

	it('a 70,000-character Chatbot ID is refused by name, with the limit', async () => {
		await refusedBeforeSending(
			{ ...chatbot({ chatbotName: 'x' }), chatbotId: '={{ "c".repeat(70000) }}' },
			/^Invalid 'Chatbot' in item 0: it has 70000 characters, more than 512/,
		);
	});

	it('an id of 512 characters is still sent', async () => {
		const result = await fx.run({
			...chatbot({ chatbotName: 'x' }),
			chatbotId: '={{ "c".repeat(512) }}',
		});
		expect(result.error?.message).toMatch(/was not found/);
		// 200: the check of the base URL after the 404 (GET /contacts/list-names), so the 404 is the chatbot's.
		expect((await fx.requests()).map((request) => request.status)).toEqual([404, 200]);
	});

	it('a 513-character Carrier is refused by name', async () => {
		await refusedBeforeSending(
			{
				resource: 'trustProduct',
				operation: 'getAll',
				carrier: '={{ "t".repeat(513) }}',
				returnAll: true,
			},
			/^Invalid 'Carrier' in item 0: it has 513 characters, more than 512/,
		);
	});

	it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'])(
		'a Chatbot Image Field named %s finds no binary field (own properties only)',
		async (property) => {
			await refusedBeforeSending(
				chatbot({ chatbotImageProperty: property }),
				new RegExp(
					`^Invalid 'Chatbot Image Field' in item 0: the input item has no binary field "${property}"`,
				),
				image({}),
			);
		},
	);

	it.each([
		'image/png\r\nX-Injected: yes',
		'image/png\nX-Injected: yes',
		'image/png\r',
		'image/png; name="a\r\nb"',
		'image',
		'image/',
		'/png',
		'image/p ng',
		'image/png/x',
	])('a MIME type %j is refused by name, nothing sent', async (mimeType) => {
		await refusedBeforeSending(
			chatbot({ chatbotImageProperty: 'data' }),
			/^Invalid 'Chatbot Image Field' in item 0: the MIME type of binary field "data" .*is not a type\/subtype/,
			image({ mimeType }),
		);
	});

	it.each(['image/png', 'image/svg+xml', 'application/vnd.acme.logo-v1'])(
		"a MIME type %j is sent as the part's Content-Type (the service judges it)",
		async (mimeType) => {
			const result = await fx.run(chatbot({ chatbotImageProperty: 'data' }), {
				items: image({ mimeType }),
			});
			expect(result.error?.name).not.toBe('NodeOperationError');
			expect(await fx.requests()).toHaveLength(1);
			if (mimeType !== 'image/png')
				expect(result.error?.message).toContain(`declared as ${mimeType}`);
		},
	);

	it('a 0-byte image is refused by name, nothing sent', async () => {
		await refusedBeforeSending(
			chatbot({ bubbleIconImageProperty: 'data' }),
			/^Invalid 'Bubble Icon Image Field' in item 0: binary field "data" is empty \(0 bytes\)/,
			image({ data: '' }),
		);
	});

	const listNamesOption = (option: string, value: string): INodeParameters => ({
		resource: 'contact',
		operation: 'getListNames',
		returnAll: true,
		options: { [option]: value },
	});
	it.each([
		['Inbound Port', sipUpdate({ ...SIP_DIRECTION, port: '={{ "0x13C4" }}' })],
		['Inbound Port', sipUpdate({ ...SIP_DIRECTION, port: '={{ "0b1010" }}' })],
		['Inbound Port', sipUpdate({ ...SIP_DIRECTION, port: '={{ "1e3" }}' })],
		['Inbound Port', sipUpdate({ ...SIP_DIRECTION, port: '={{ "5060.0" }}' })],
		[
			'Limit',
			{ resource: 'contact', operation: 'getListNames', returnAll: false, limit: '={{ "1e3" }}' },
		],
		['Concurrency', listNamesOption('concurrency', '={{ "0x5" }}')],
		['Max Attempts', listNamesOption('maxAttempts', '={{ "0b10" }}')],
		['Timeout (Seconds)', listNamesOption('timeoutSeconds', '={{ "0x1E" }}')],
		['Max Retry Wait (Seconds)', listNamesOption('maxWaitSeconds', '={{ "1e1" }}')],
	] as Array<[string, INodeParameters]>)(
		'%s written in hex, binary or exponent notation is refused by name',
		async (label, parameters) => {
			await refusedBeforeSending(
				parameters,
				new RegExp(`^Invalid '${label.replace(/[()]/g, '\\$&')}' in item 0: `),
			);
		},
	);

	it('a whole number from an expression (1e3 as a number) and digits as text are accepted', async () => {
		const result = await fx.run({
			resource: 'contact',
			operation: 'getListNames',
			returnAll: false,
			limit: '={{ 1e3 }}',
			options: { concurrency: '={{ " 4 " }}', timeoutSeconds: '={{ "2.5" }}' },
		});
		expect(result.error).toBeUndefined();
	});

	it('free text goes as typed: spaces and line breaks are kept', async () => {
		const typed = {
			welcome_message: '  Hello!\n\n',
			input_placeholder: ' Ask… ',
			greeting_text: '\tHi there ',
			chatbot_title: ' Title ',
			chatbotName: 'Support ',
		};
		const result = await fx.run(chatbot(typed));
		expect(result.error).toBeUndefined();
		const state = (await fx.state<{ chatbots: Array<Record<string, unknown>> }>()).chatbots.find(
			(c) => c.id === 'cb_acme_support',
		);
		// Line breaks in a multipart/form-data field go as CRLF, as every browser's form sends them.
		expect(state).toMatchObject({ ...typed, welcome_message: '  Hello!\r\n\r\n' });
	});

	it('Agent Task goes as typed; the name, the voice and the number (identifiers) are trimmed', async () => {
		const result = await fx.run({
			...agent,
			phoneNumber: ' +14155550111 ',
			agentName: ' Night Desk ',
			task: '  Call the lead.\n\nBe brief.\n',
			selectedVoice: ' maya ',
		});
		expect(result.error).toBeUndefined();
		const agents = (await fx.state<{ agents: Array<Record<string, unknown>> }>()).agents;
		expect(agents[agents.length - 1]).toMatchObject({
			phoneNumber: '+14155550111',
			agentName: 'Night Desk',
			task: '  Call the lead.\n\nBe brief.\n',
			selectedVoice: 'maya',
		});
	});
});

describe('a field is named in errors as its property shows it (fieldsIn)', () => {
	const properties: INodeProperties[] = [
		{ displayName: 'Agent Name', name: 'agentName', type: 'string', default: '' },
		{
			displayName: 'Update Fields',
			name: 'updateFields',
			type: 'collection',
			default: {},
			options: [{ displayName: 'Header Color', name: 'header_color', type: 'string', default: '' }],
		},
	];

	it("takes each label from its property's displayName, a collection's option by its dotted name", () => {
		expect(fieldsIn(properties, ['agentName', 'updateFields.header_color'])).toEqual({
			agentName: { name: 'agentName', label: 'Agent Name' },
			'updateFields.header_color': { name: 'updateFields.header_color', label: 'Header Color' },
		});
	});

	it("names a fixedCollection's field with its group: 'Inbound Port'", () => {
		const directions: INodeProperties = {
			displayName: 'Directions',
			name: 'directions',
			type: 'fixedCollection',
			default: {},
			options: [
				{
					displayName: 'Inbound',
					name: 'inbound',
					values: [{ displayName: 'Port', name: 'port', type: 'string', default: '' }],
				},
			],
		};
		expect(fieldsIn([directions], ['directions.inbound.port'])).toEqual({
			'directions.inbound.port': { name: 'directions.inbound.port', label: 'Inbound Port' },
		});
		expect(() => fieldsIn([directions], ['directions.outbound.port'])).toThrow(
			'No property named directions.outbound.port',
		);
	});

	it('throws for a name no property has, so a misspelt field fails as the module loads', () => {
		expect(() => fieldsIn(properties, ['agentname'])).toThrow('No property named agentname');
		expect(() => fieldsIn(properties, ['updateFields.headerColor'])).toThrow(
			'No property named updateFields.headerColor',
		);
	});
});
