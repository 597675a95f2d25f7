/**
 * The node under n8n's own node Settings, in n8n-core's engine: On Error (error output, regular output,
 * stop), Retry On Fail, Always Output Data, Execute Once, Continue On Fail with Concurrency > 1.
 * Every operation's failing item through the error output comes from the catalogue (`failing`).
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { catalogue, entryName, exampleParameters } from '../../harness/catalogue';
import type { InputItem, NodeSettings, RunNodeResult } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const ERROR_OUTPUT: NodeSettings = { onError: 'continueErrorOutput' };
const REGULAR_OUTPUT: NodeSettings = { onError: 'continueRegularOutput' };
/** Retry On Fail with the shortest wait n8n allows (0 would mean n8n's default of one second). */
const RETRY_TWICE: NodeSettings = { retryOnFail: true, maxTries: 2, waitBetweenTries: 1 };

async function run(
	parameters: INodeParameters,
	items: InputItem[] | undefined,
	settings: NodeSettings,
	apiKey?: string,
): Promise<RunNodeResult> {
	return await runNode({
		parameters,
		items,
		settings,
		credentials: fx.credentials(apiKey ? { apiKey } : {}),
	});
}

const paired = (items: INodeExecutionData[] = []) =>
	items.map((item) => (item.pairedItem as { item: number }).item);

const chatbotUpdate = (concurrency?: number): INodeParameters => ({
	resource: 'chatbot',
	operation: 'update',
	chatbotId: '={{ $json.id }}',
	updateFields: { chatbot_title: '={{ $json.title }}' },
	...(concurrency && { options: { concurrency } }),
});
/** Agent Create with the phone and the name from each item. */
const agentCreate = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'agent',
	operation: 'create',
	phoneNumber: '={{ $json.phone }}',
	agentName: '={{ $json.name }}',
	task: 'Call',
	selectedVoice: 'maya',
	options,
});
const chatbots = (...ids: string[]): InputItem[] =>
	ids.map((id, index) => ({ json: { id, title: `Title ${index}` } }));

describe('On Error: Continue (using error output)', () => {
	it('sends the failed item to the error output with the message, description and HTTP code of the regular output', async () => {
		const items = chatbots('cb_acme_support', 'cb_missing', 'cb_acme_booking');
		const result = await run(chatbotUpdate(), items, ERROR_OUTPUT);
		expect(result.error).toBeUndefined();
		const [success, failure] = result.outputs;
		expect(paired(success)).toEqual([0, 2]);
		expect(success.map((item) => item.json.id)).toEqual(['cb_acme_support', 'cb_acme_booking']);
		expect(paired(failure)).toEqual([1]);

		const regular = await run(chatbotUpdate(), items, REGULAR_OUTPUT);
		const { error: message, description, httpCode } = regular.items[1].json;
		expect(httpCode).toBe('404');
		expect(message).toMatch(/cb_missing/);
		expect(typeof description).toBe('string');
		// n8n lays the failure over the input item it is paired with.
		expect(failure[0].json).toEqual({
			id: 'cb_missing',
			title: 'Title 1',
			error: { message, description, httpCode },
		});
	});

	it('every failure kind goes to the error output, paired, the other items to the success output', async () => {
		let created = 0;
		const agents = (first: string): InputItem[] => [
			{ json: { phone: first, name: `Kind A${++created}` } },
			{ json: { phone: '+14155550177', name: `Kind B${created}` } },
		];
		const listNames = (options: INodeParameters) => ({
			resource: 'contact',
			operation: 'getListNames',
			returnAll: true,
			options: { concurrency: 1, ...options },
		});
		const kinds: Array<{
			name: string;
			fault?: { kind: string; method?: string; path: string; times: number };
			parameters: INodeParameters;
			items: InputItem[];
			message: RegExp;
			description?: RegExp;
			httpCode?: string;
		}> = [
			{
				name: 'invalid input, refused before sending',
				parameters: agentCreate({}),
				items: agents('555-0101'),
				message: /Phone Number/,
			},
			{
				name: 'rate limit after the last attempt',
				fault: { kind: 'rate-limit', path: '/contacts/list-names', times: 2 },
				parameters: listNames({ maxAttempts: 2, maxWaitSeconds: 0 }),
				items: [{ json: {} }, { json: {} }],
				message: /429|rate/i,
				httpCode: '429',
			},
			{
				name: 'timeout',
				fault: { kind: 'timeout', path: '/contacts/list-names', times: 1 },
				parameters: listNames({ maxAttempts: 1, timeoutSeconds: 1 }),
				items: [{ json: {} }, { json: {} }],
				message: /\S/,
				description: /base URL in the credential/,
			},
			{
				name: 'connection reset',
				fault: { kind: 'reset', path: '/contacts/list-names', times: 1 },
				parameters: listNames({ maxAttempts: 1 }),
				items: [{ json: {} }, { json: {} }],
				message: /\S/,
				description: /base URL in the credential/,
			},
			{
				name: 'a 500 on Agent Create: the agent may have been created',
				fault: { kind: 'status-500', method: 'POST', path: '/callback/standardCampaign', times: 1 },
				parameters: agentCreate({ concurrency: 1 }),
				items: agents('+14155550176'),
				message: /failed \(500\)/,
				description: /created/,
				httpCode: '500',
			},
		];
		for (const kind of kinds) {
			await fx.reset();
			if (kind.fault) await fx.fault(kind.fault);
			const result = await run(kind.parameters, kind.items, ERROR_OUTPUT);
			expect({ kind: kind.name, error: result.error?.message }).toEqual({
				kind: kind.name,
				error: undefined,
			});
			const [success, failure] = result.outputs;
			expect({
				kind: kind.name,
				success: [...new Set(paired(success))],
				failure: paired(failure),
			}).toEqual({
				kind: kind.name,
				success: [1],
				failure: [0],
			});
			const error = failure[0].json.error as Record<string, unknown>;
			expect(error.message).toMatch(kind.message);
			if (kind.description) expect(error.description).toMatch(kind.description);
			if (kind.httpCode) expect(error.httpCode).toBe(kind.httpCode);
		}
		// The invalid item was never sent: one POST per other run of Agent Create.
		await fx.reset();
		await run(agentCreate({}), agents('555-0101'), ERROR_OUTPUT);
		expect((await fx.requests()).map((request) => request.method)).toEqual(['POST']);
	});

	it('a SIP Compare that cannot read the configuration goes to the error output (an item with status "could not read" otherwise)', async () => {
		const compare: INodeParameters = {
			resource: 'sip',
			operation: 'compare',
			phoneNumber: '={{ $json.phone }}',
			directions: { outbound: { sipEndpoint: 'sip:pbx.acme-dental.example', port: 5060 } },
		};
		const items = [{ json: { phone: '+14155550103' } }];
		await fx.admin('PUT', '/orgs/org_acme/sip-get-shape', { shape: 'named' });
		try {
			const regular = await run(compare, items, REGULAR_OUTPUT);
			expect(regular.items.map((item) => item.json.status)).toEqual(['could not read']);
			const stopping = await run(compare, items, {});
			expect(stopping.error).toBeUndefined();
			expect(stopping.items.map((item) => item.json.status)).toEqual(['could not read']);

			const result = await run(compare, items, ERROR_OUTPUT);
			const [success, failure] = result.outputs;
			expect(success).toEqual([]);
			expect(paired(failure)).toEqual([0]);
			expect(failure[0].json.error).toEqual({
				message: regular.items[0].json.reason,
				description: expect.stringMatching(/could not read/),
			});
		} finally {
			await fx.admin('PUT', '/orgs/org_acme/sip-get-shape', { shape: 'documented' });
		}
	});

	it('no SIP password in a failed item on the error output', async () => {
		const password = 'err-output-pass-7781';
		const result = await run(
			{
				resource: 'sip',
				operation: 'update',
				phoneNumber: '={{ $json.phone }}',
				directions: {
					inbound: {
						sipEndpoint: 'sip:pbx2.acme-dental.example',
						sipUsername: 'acme',
						sipPassword: password,
					},
				},
			},
			[{ json: { phone: '+14155550199' } }],
			ERROR_OUTPUT,
		);
		expect(paired(result.outputs[1])).toEqual([0]);
		expect(JSON.stringify(result.run?.data.resultData)).not.toContain(password);
	});

	describe.each(
		catalogue.map((entry) => ({ entry, name: entryName(entry), failing: entry.failing })),
	)('$name', ({ entry, failing }) => {
		it('its failing item leaves on the error output, paired; the others on the success output', async () => {
			const result = await run(
				{ ...exampleParameters(entry), ...failing.parameters },
				failing.items,
				ERROR_OUTPUT,
			);
			expect(result.error).toBeUndefined();
			const [success, failure] = result.outputs;
			const failed = failing.failsInEngine ?? [failing.at];
			const others = failing.items.map((_, index) => index).filter((i) => !failed.includes(i));
			expect(paired(failure)).toEqual(failed);
			expect([...new Set(paired(success))]).toEqual(others);
			const error = failure[failed.indexOf(failing.at)].json.error as Record<string, unknown>;
			expect(error.message).toMatch(failing.message);
			if (failing.httpCode) expect(error.httpCode).toBe(failing.httpCode);
		});
	});
});

describe('On Error: Continue (regular output) and Stop Workflow, as before', () => {
	it('regular output: one item per input item, the failure as { error, description, httpCode }', async () => {
		const result = await run(
			chatbotUpdate(),
			chatbots('cb_acme_support', 'cb_missing'),
			REGULAR_OUTPUT,
		);
		expect(result.outputs).toHaveLength(1);
		expect(paired(result.items)).toEqual([0, 1]);
		expect(result.items[1].json).toEqual({
			error: expect.stringMatching(/cb_missing/),
			description: expect.any(String),
			httpCode: '404',
		});
	});

	it('Stop Workflow: the run fails with the 404', async () => {
		const result = await run(chatbotUpdate(1), chatbots('cb_missing', 'cb_acme_support'), {});
		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(result.items).toEqual([]);
		// GET: after the 404, the base URL is checked once (it reaches the API: the 404 is the chatbot's).
		expect((await fx.requests()).map((request) => request.method)).toEqual(['PATCH', 'GET']);
	});
});

describe('Continue On Fail with Concurrency > 1', () => {
	const ids = ['cb_acme_support', 'cb_missing', 'cb_acme_booking', 'cb_acme_support', 'cb_gone'];

	it('regular output: every item in input order, the failures where their items were', async () => {
		const result = await run(chatbotUpdate(4), chatbots(...ids), REGULAR_OUTPUT);
		expect(paired(result.items)).toEqual([0, 1, 2, 3, 4]);
		expect(result.items.map((item) => item.json.httpCode ?? item.json.id)).toEqual([
			'cb_acme_support',
			'404',
			'cb_acme_booking',
			'cb_acme_support',
			'404',
		]);
	});

	it('error output: successes and failures each in input order, each paired', async () => {
		const result = await run(chatbotUpdate(4), chatbots(...ids), ERROR_OUTPUT);
		const [success, failure] = result.outputs;
		expect(paired(success)).toEqual([0, 2, 3]);
		expect(paired(failure)).toEqual([1, 4]);
		expect(failure.map((item) => item.json.id)).toEqual(['cb_missing', 'cb_gone']);
	});
});

describe('Retry On Fail never sends a success twice', () => {
	const createAgents = (prefix: string, count: number, options: INodeParameters = {}) => ({
		parameters: agentCreate(options),
		items: Array.from({ length: count }, (_, index) => ({
			json: { phone: `+1415556${String(index).padStart(4, '0')}`, name: `${prefix} ${index}` },
		})),
	});
	const agentsNamed = async (prefix: string) =>
		(await fx.state<{ agents: Array<{ agentName: string }> }>()).agents.filter((agent) =>
			agent.agentName.startsWith(prefix),
		);
	const posts = async () =>
		(await fx.requests()).filter((request) => request.method === 'POST').length;
	const firstAgentPostFails = async () =>
		await fx.fault({
			kind: 'status-500',
			method: 'POST',
			path: '/callback/standardCampaign',
			times: 1,
		});

	it('Agent Create, 2 items, one answered 500 once, 2 tries: 3 POSTs, each agent once, output paired', async () => {
		await firstAgentPostFails();
		const { parameters, items } = createAgents('Retry', 2, { concurrency: 2 });
		const result = await run(parameters, items, RETRY_TWICE);
		expect(result.error).toBeUndefined();
		expect(await posts()).toBe(3);
		expect((await agentsNamed('Retry ')).map((agent) => agent.agentName).sort()).toEqual([
			'Retry 0',
			'Retry 1',
		]);
		expect(result.items.map((item) => [item.json.agentName, item.pairedItem])).toEqual([
			['Retry 0', { item: 0 }],
			['Retry 1', { item: 1 }],
		]);
	});

	it('with Continue (using error output): a retry sends only the failed item', async () => {
		await firstAgentPostFails();
		const { parameters, items } = createAgents('Branch', 3, { concurrency: 1 });
		const result = await run(parameters, items, { ...RETRY_TWICE, ...ERROR_OUTPUT });
		expect(result.outputs[1]).toEqual([]);
		expect(paired(result.outputs[0])).toEqual([0, 1, 2]);
		expect(await posts()).toBe(4);
		expect(await agentsNamed('Branch ')).toHaveLength(3);
	});

	it('with Continue (regular output) n8n retries only when the first item failed; the success is not sent again', async () => {
		const paths = async () => (await fx.requests()).map((request) => request.path).sort();
		const settings = { ...RETRY_TWICE, ...REGULAR_OUTPUT };
		const firstFails = await run(
			chatbotUpdate(1),
			chatbots('cb_missing', 'cb_acme_support'),
			settings,
		);
		expect(paired(firstFails.items)).toEqual([0, 1]);
		expect(await paths()).toEqual([
			'/chatbot/cb_acme_support',
			'/chatbot/cb_missing',
			'/chatbot/cb_missing',
			// after each try's 404, the check of the base URL (request.ts, baseUrlUnknown)
			'/contacts/list-names',
			'/contacts/list-names',
		]);
		await fx.reset();
		await run(chatbotUpdate(1), chatbots('cb_acme_support', 'cb_missing'), settings);
		expect(await paths()).toEqual([
			'/chatbot/cb_acme_support',
			'/chatbot/cb_missing',
			'/contacts/list-names',
		]);
	});

	it('nothing is remembered across executions', async () => {
		const parameters = chatbotUpdate();
		const items = chatbots('cb_acme_support');
		await run(parameters, items, RETRY_TWICE);
		await run(parameters, items, RETRY_TWICE);
		expect((await fx.requests()).map((request) => request.method)).toEqual(['PATCH', 'PATCH']);
	});
});

describe('Always Output Data and Execute Once', () => {
	it('an empty Get Many gives one empty item with Always Output Data, none without', async () => {
		await fx.admin('POST', '/orgs', { name: 'Empty', id: 'org_empty_settings' });
		const { apiKey } = await fx.admin<{ apiKey: string }>(
			'POST',
			'/orgs/org_empty_settings/keys',
			{},
		);
		const getMany = { resource: 'agent', operation: 'getAll', returnAll: true };
		const without = await run(getMany, undefined, {}, apiKey);
		expect(without.error).toBeUndefined();
		expect(without.items).toEqual([]);
		const withEmpty = await run(getMany, undefined, { alwaysOutputData: true }, apiKey);
		expect(withEmpty.items).toEqual([{ json: {}, pairedItem: [{ item: 0, input: 0 }] }]);
	});

	it('with the error output, Always Output Data adds the empty item to the success output when every item failed', async () => {
		const result = await run(chatbotUpdate(), chatbots('cb_missing', 'cb_gone'), {
			...ERROR_OUTPUT,
			alwaysOutputData: true,
		});
		const [success, failure] = result.outputs;
		expect(success.map((item) => item.json)).toEqual([{}]);
		expect(paired(failure)).toEqual([0, 1]);
	});

	it('Execute Once sends one request, for the first item', async () => {
		const result = await run(
			chatbotUpdate(),
			chatbots('cb_acme_support', 'cb_acme_booking', 'cb_missing'),
			{ executeOnce: true },
		);
		expect(result.error).toBeUndefined();
		expect((await fx.requests()).map((request) => request.path)).toEqual([
			'/chatbot/cb_acme_support',
		]);
		expect(paired(result.items)).toEqual([0]);
	});
});
