/**
 * A fresh, random canary API key runs every operation, on success and on every kind of failure, with
 * both header forms. Everything the runs produced (output items, error messages and descriptions, the
 * whole run data, n8n's log and the console) and everything that went over the wire (URLs, headers and
 * bodies as a recording proxy saw them, the sandbox's own request log and state) is scanned: the key
 * appears only in the one auth header. Credentials that are not a ct_ key or an http(s) base URL are
 * refused before any request.
 */
import { restoreLogLevel } from '../../harness/debugLogging';

import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import type { InputItem, RunNodeResult } from '../../harness/engine';
import { runNode, testCredential } from '../../harness/engine';
import { PNG, SandboxFixture, everything } from '../../harness/sandboxFixture';
import { TriggerWorkflow } from '../../harness/triggerWorkflow';
import { catalogue, entryName, exampleParameters } from '../../harness/catalogue';
import { startRecorder, type RecordedRequest } from '../../harness/recorder';
import { SIP_DIRECTION } from '../../harness/parameters';

const fx = new SandboxFixture();
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let canary: { id: string; apiKey: string };
const logged: string[] = [];
const restore: Array<() => void> = [];

/** Every piece of the key long enough to identify it: the whole key, its secret part, its two halves. */
function fragments(key: string): string[] {
	const secret = key.slice(3);
	return [
		key,
		secret,
		secret.slice(0, 20),
		secret.slice(-20),
		Buffer.from(key).toString('base64'),
		encodeURIComponent(key),
	];
}

function leaks(text: string, key = canary.apiKey): string[] {
	return fragments(key).filter((fragment) => text.includes(fragment));
}

/** n8n's logger (winston) writes to console._stdout/_stderr: process.stdout in band, jest's own buffer in a worker. */
function capture(): void {
	const inner = console as unknown as {
		_stdout?: NodeJS.WriteStream;
		_stderr?: NodeJS.WriteStream;
	};
	const streams = new Set(
		[process.stdout, process.stderr, inner._stdout, inner._stderr].filter(
			(stream) => stream !== undefined,
		),
	);
	for (const stream of streams) {
		const original = stream.write.bind(stream);
		stream.write = ((chunk: unknown, ...rest: unknown[]) => {
			logged.push(String(chunk));
			return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
		}) as typeof stream.write;
		restore.push(() => (stream.write = original));
	}
	for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			logged.push(
				args
					.map((arg) =>
						typeof arg === 'string'
							? arg
							: JSON.stringify(arg, Object.getOwnPropertyNames(arg ?? {})),
					)
					.join(' '),
			);
		});
		restore.push(() => spy.mockRestore());
	}
}

beforeAll(async () => {
	await fx.start();
	recorder = await startRecorder(fx.sandbox.baseUrl);
	canary = await fx.admin<{ id: string; apiKey: string }>('POST', '/orgs/org_acme/keys', {
		name: 'canary',
	});
	capture();
});

afterAll(async () => {
	for (const undo of restore.reverse()) undo();
	restoreLogLevel();
	await recorder?.close();
	await fx.stop();
});

beforeEach(async () => await fx.reset());

const FAST = { maxAttempts: 1, timeoutSeconds: 1 };
const image = (mimeType: string, data: Buffer | string = PNG): InputItem[] => [
	{ json: {}, binary: { data: { data, mimeType, fileName: 'logo.png' } } },
];

interface Scenario {
	name: string;
	parameters: INodeParameters;
	items?: InputItem[];
	fault?: { kind: string; path: string; method?: string };
	continueOnFail?: boolean;
	/** Whether the run must fail; absent: either. */
	fails?: boolean;
}

const scenarios = (authHeader: 'bearer' | 'xApiKey'): Scenario[] => [
	// Every operation's catalogue example, once per header form on one sandbox: a write that may not be
	// repeated may fail the second time (Agent Create: the name exists); Pass Once fails in the engine
	// (no processed-data store). Scanned all the same.
	...catalogue.map(
		(entry): Scenario => ({
			name: `${entryName(entry)} (catalogue example)`,
			parameters: exampleParameters(entry),
			items: entry.example.items,
			fails: entry.request === null ? true : entry.retried === 'after429' ? undefined : false,
		}),
	),
	{
		name: 'agent create',
		parameters: {
			resource: 'agent',
			operation: 'create',
			phoneNumber: '+14155550180',
			agentName: '={{ "Canary " + $runIndex + Math.random() }}',
			task: 'x',
			selectedVoice: 'maya',
		},
		fails: false,
	},
	{
		name: 'chatbot update with an image',
		parameters: {
			resource: 'chatbot',
			operation: 'update',
			chatbotId: 'cb_acme_support',
			updateFields: { chatbotName: 'Canary', chatbotImageProperty: 'data' },
		},
		items: image('image/png'),
		fails: false,
	},
	{
		name: 'SIP update with a password',
		parameters: {
			resource: 'sip',
			operation: 'update',
			phoneNumber: '+14155550102',
			directions: {
				inbound: { ...SIP_DIRECTION, sipUsername: 'u', sipPassword: 'pw' },
			},
		},
		fails: false,
	},
	{
		name: 'webhook set',
		parameters: {
			resource: 'webhook',
			operation: 'set',
			whenTriggerHolds: 'takeOver',
			webhookUrl: 'https://crm.example.com/hook?source=voiceai',
		},
		fails: false,
	},
	{
		name: 'SIP detach',
		parameters: {
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550103',
			directions: [authHeader === 'bearer' ? 'outbound' : 'inbound'],
		},
		fails: false,
	},
	{
		name: "404 another organization's chatbot",
		parameters: {
			resource: 'chatbot',
			operation: 'update',
			chatbotId: 'cb_globex_main',
			updateFields: { chatbotName: 'x' },
		},
		fails: true,
	},
	{
		name: '409 duplicate agent',
		parameters: {
			resource: 'agent',
			operation: 'create',
			phoneNumber: '+14155550181',
			agentName: 'Reception',
			task: 'x',
			selectedVoice: 'maya',
		},
		fails: true,
	},
	{
		name: '400 unknown voice',
		parameters: {
			resource: 'agent',
			operation: 'create',
			phoneNumber: '+14155550182',
			agentName: 'Voice',
			task: 'x',
			selectedVoice: 'Maya',
		},
		fails: true,
	},
	{
		name: '415 a fake image',
		parameters: {
			resource: 'chatbot',
			operation: 'update',
			chatbotId: 'cb_acme_support',
			updateFields: { chatbotImageProperty: 'data' },
		},
		items: image('image/png', 'not an image'),
		fails: true,
	},
	{
		name: 'invalid input',
		parameters: { resource: 'sip', operation: 'get', phoneNumber: '555' },
		fails: true,
	},
	{
		name: 'error items with Continue On Fail',
		parameters: { resource: 'sip', operation: 'get', phoneNumber: '={{ $json.p }}' },
		items: [{ json: { p: '+19995550000' } }, { json: { p: 'x' } }],
		continueOnFail: true,
		fails: false,
	},
	...[
		'status-500',
		'status-503',
		'rate-limit',
		'timeout',
		'reset',
		'malformed-json',
		'html',
		'huge',
	].map(
		(kind): Scenario => ({
			name: `fault ${kind}`,
			parameters: {
				resource: 'contact',
				operation: 'getListNames',
				returnAll: true,
				options: FAST,
			},
			fault: { kind, path: '/contacts/list-names' },
			fails: true,
		}),
	),
	{
		name: 'fault 500 on create',
		parameters: {
			resource: 'agent',
			operation: 'create',
			phoneNumber: '+14155550183',
			agentName: 'Fault',
			task: 'x',
			selectedVoice: 'maya',
			options: FAST,
		},
		fault: { kind: 'status-500', path: '/callback/standardCampaign', method: 'POST' },
		fails: true,
	},
];

const runs: Array<{ name: string; result: RunNodeResult }> = [];

describe.each(['bearer', 'xApiKey'] as const)('with the key in %s', (authHeader) => {
	const credentials = (): Record<string, ICredentialDataDecryptedObject> => ({
		voiceAiApi: { baseUrl: recorder.url, apiKey: canary.apiKey, authHeader },
	});

	it.each(scenarios(authHeader))(
		'$name: the key is in no output, error or run data',
		async (scenario) => {
			if (scenario.fault) await fx.fault({ ...scenario.fault, times: 1 });
			const result = await runNode({
				parameters: scenario.parameters,
				credentials: credentials(),
				items: scenario.items,
				continueOnFail: scenario.continueOnFail,
			});
			runs.push({ name: `${authHeader} ${scenario.name}`, result });
			if (scenario.fails !== undefined) expect(Boolean(result.error)).toBe(scenario.fails);
			expect(leaks(everything(result))).toEqual([]);
			expect(leaks(JSON.stringify(result.run ?? null))).toEqual([]);
			if (result.error)
				expect(
					leaks(JSON.stringify(result.error, Object.getOwnPropertyNames(result.error))),
				).toEqual([]);
		},
	);

	it('the credential test reports success without showing the key', async () => {
		const outcome = await testCredential('voiceAiApi', credentials().voiceAiApi);
		expect(outcome.status).toBe('OK');
		expect(leaks(JSON.stringify(outcome))).toEqual([]);
	});
});

describe('the trigger', () => {
	it('registers its URL with a token that reveals nothing of the key', async () => {
		const flow = new TriggerWorkflow({ baseUrl: recorder.url, apiKey: canary.apiKey });
		expect(await flow.activate()).toBe(true);
		const state = await fx.state<{ webhook: unknown }>();
		expect(String(state.webhook)).toContain(flow.productionUrl);
		expect(leaks(JSON.stringify(state))).toEqual([]);
		expect(leaks(JSON.stringify(flow.saved))).toEqual([]);
		await flow.deactivate();
	});
});

describe('everything that left the process', () => {
	it("n8n's logger was listening (the scan below is not empty)", () => {
		expect(runs.filter((run) => run.result.error).length).toBeGreaterThan(10);
		expect(logged.join('\n')).toContain('Running node "Voice AI" finished with error');
	});

	it('the log and the console never show the key', () => {
		expect(leaks(logged.join('\n'))).toEqual([]);
	});

	it('on the wire the key is only ever the value of the one auth header', () => {
		const withKey = recorder.requests.filter(
			(request: RecordedRequest) => leaks(JSON.stringify(request.headers)).length > 0,
		);
		expect(withKey.length).toBeGreaterThan(runs.length);
		for (const request of recorder.requests) {
			expect({ url: request.url, leaks: leaks(request.url) }).toEqual({
				url: request.url,
				leaks: [],
			});
			expect(leaks(request.body.toString('latin1'))).toEqual([]);
			const carriers = Object.entries(request.headers).filter(
				([, value]) => leaks(String(value)).length > 0,
			);
			if (carriers.length === 0) continue;
			expect(carriers).toHaveLength(1);
			const [[name, value]] = carriers;
			expect([
				['authorization', `Bearer ${canary.apiKey}`],
				['x-api-key', canary.apiKey],
			]).toContainEqual([name, value]);
		}
	});

	it("the sandbox never saw the key in a URL or a body and holds it nowhere in the organization's state", async () => {
		const keys = await fx.admin<Array<{ id: string; exposed: boolean }>>(
			'GET',
			'/orgs/org_acme/keys',
		);
		expect(keys.find((key) => key.id === canary.id)).toMatchObject({ exposed: false });
		expect(leaks(JSON.stringify(await fx.state()))).toEqual([]);
		expect(leaks(JSON.stringify(await fx.admin('GET', '/requests')))).toEqual([]);
	});
});

describe('a credential that is not a Voice AI key or not an http(s) base URL is refused before any request', () => {
	const KEYS = [
		'sk_live_0123456789abcdef',
		'CT_uppercaseprefix0123',
		'ct_',
		'ct_ has spaces',
		'Bearer ct_abc',
		' ',
		'ct-dash0123456789',
	];
	const URLS = [
		'ftp://api.example.com',
		'api.example.com',
		'javascript:alert(1)',
		'file:///etc/passwd',
		'//api.example.com',
		'http//api.example.com',
		'',
	];
	const cases = [
		...KEYS.map((apiKey) => ({
			what: `key ${JSON.stringify(apiKey)}`,
			credential: { apiKey },
			message: /^The API key in the Voice AI credential does not start with ct_/,
		})),
		...URLS.map((baseUrl) => ({
			what: `base URL ${JSON.stringify(baseUrl)}`,
			credential: { baseUrl },
			message: /^The Voice AI credential has no valid base URL/,
		})),
	];

	// Webhook Set may read the agent list first (another key on this base URL); Agent Get Many sends
	// its one request: both refuse the credential with its own words whole.
	const operations = [
		{
			resource: 'webhook',
			operation: 'set',
			whenTriggerHolds: 'takeOver',
			webhookUrl: 'https://crm.example.com/hook',
		},
		{ resource: 'agent', operation: 'getAll' },
	];
	const everyCase = operations.flatMap((parameters) =>
		cases.map((entry) => ({ ...entry, parameters, op: parameters.operation })),
	);

	it.each(everyCase)('$op, $what', async ({ credential, message, parameters }) => {
		const before = recorder.requests.length;
		const result = await runNode({
			parameters,
			credentials: { voiceAiApi: { baseUrl: recorder.url, apiKey: canary.apiKey, ...credential } },
		});
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toMatch(/credential/);
		expect(recorder.requests.length).toBe(before);
		expect(await fx.requests()).toEqual([]);
	});
});
