/**
 * The fault suite in a real n8n, on every line the README names (1.123.x, 2.40.x, 2.41.x): request
 * failures reach the node in each line's own error shapes (n8n-core 1.x wraps them differently from
 * 2.x), and the node must behave the same on all of them. Faults come from the sandbox's injection;
 * attempts are counted in the sandbox's request log. Then the credential dialog's test with a revoked
 * key and with base URLs that are not http(s), which on 1.x runs another error path than on 2.x.
 * Then base URLs that read as the service but are not (issue 34): through the credential test and the
 * node, with a second local server standing in for the other host, which must receive nothing.
 * One n8n for the file.
 */
import type { INodeParameters } from 'n8n-workflow';

import { forgetRequests, type Loopback, startLoopback } from '../../harness/loopback';
import { chain, voiceAiNode, START } from '../../harness/manualWorkflow';
import { n8nVersion, pollUntil, type ExecutionDetail, type SavedWorkflow } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const LIST = '/contacts/list-names';
const AGENTS = '/callback/standardCampaign';
const MAY_EXIST = /may have been created.*not repeated automatically/;

const stack = stackForFile({ n8n: { readyTimeoutMs: 300_000 } });
let readTwice: SavedWorkflow;
let readDefault: SavedWorkflow;
let createAgent: SavedWorkflow;

function listNames(options: INodeParameters): INodeParameters {
	return { resource: 'contact', operation: 'getListNames', returnAll: true, options };
}

beforeAll(async () => {
	// n8n 1.123.x migrates a new database for over two minutes on its first start.
	const credentials = { voiceAiApi: stack.credential };
	const single = (name: string, parameters: INodeParameters) =>
		stack.api.importWorkflow(chain(name, [voiceAiNode('Voice AI', parameters)]), credentials);
	[readTwice, readDefault, createAgent] = await Promise.all([
		single(
			'faults: read, Timeout 1 s, Max Attempts 2',
			listNames({ timeoutSeconds: 1, maxAttempts: 2 }),
		),
		single('faults: read, default retries', listNames({ timeoutSeconds: 1 })),
		single('faults: Agent Create', {
			resource: 'agent',
			operation: 'create',
			phoneNumber: '+14155550172',
			agentName: 'Fault suite agent',
			task: 'Call back',
			selectedVoice: 'june',
			options: { timeoutSeconds: 1 },
		}),
	]);
}, 360_000);

beforeEach(async () => {
	await stack.admin.request('DELETE', '/__sandbox/faults');
	await stack.admin.request('DELETE', '/__sandbox/requests');
});

async function fault(kind: string, method: string, path: string, times?: number): Promise<void> {
	await stack.admin.request('POST', '/__sandbox/faults', { kind, method, path, times });
}

/**
 * Statuses the sandbox logged for `method path` (0: the client left before an answer). The run has
 * ended when this is called; a dropped connection is logged once the sandbox sees it close, so the
 * log is read until it holds `expected` entries (or a few seconds passed), then compared whole.
 */
async function attempts(method: string, path: string, expected: number): Promise<number[]> {
	const read = async () =>
		(
			await stack.admin.request<Array<{ method: string; path: string; status: number }>>(
				'GET',
				`/__sandbox/requests?org=${stack.org.id}`,
			)
		)
			.filter((entry) => entry.method === method && entry.path === path)
			.map((entry) => entry.status);
	await pollUntil(async () => (await read()).length >= expected, {
		timeoutMs: 5_000,
		what: `${expected} logged ${method} ${path}`,
	}).catch(() => undefined);
	return await read();
}

/** What n8n shows for the failed run: `message: description`. */
async function failedRun(workflow: SavedWorkflow): Promise<string> {
	const execution: ExecutionDetail = await stack.api.runWorkflow(workflow, START);
	expect(execution.status).toBe('error');
	return String(execution.error);
}

describe(`n8n ${n8nVersion()}: faults`, () => {
	test('a read that times out (Timeout 1 s, Max Attempts 2) is tried twice and says the service did not answer', async () => {
		await fault('timeout', 'GET', LIST);
		const error = await failedRun(readTwice);
		expect({ error, attempts: await attempts('GET', LIST, 2) }).toEqual({
			error: expect.stringMatching(/^Voice AI did not answer in time \(after 2 attempts\): /),
			attempts: [0, 0],
		});
	});

	test('a read whose connection is reset is tried four times (the default) and says it was dropped', async () => {
		await fault('reset', 'GET', LIST);
		const error = await failedRun(readDefault);
		expect({ error, attempts: await attempts('GET', LIST, 4) }).toEqual({
			error: expect.stringMatching(
				/^The connection to Voice AI was dropped \(after 4 attempts\): Check that the base URL/,
			),
			attempts: [0, 0, 0, 0],
		});
	});

	test('a read through a 429 with Retry-After, a 503 and a 500 is repeated until it succeeds', async () => {
		await fault('rate-limit', 'GET', LIST, 1);
		await fault('status-503', 'GET', LIST, 1);
		await fault('status-500', 'GET', LIST, 1);
		const execution = await stack.api.runWorkflow(readDefault, START);
		expect({ status: execution.status, error: execution.error }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(execution.outputs['Voice AI'].map((item) => item.name)).toEqual([
			'Leads',
			'Patients',
			'Newsletter',
		]);
		expect(await attempts('GET', LIST, 4)).toEqual([429, 503, 500, 200]);
	});

	test.each([
		['timeout', /^Voice AI did not answer in time: /],
		['reset', /^The connection to Voice AI was dropped: /],
	])(
		'Agent Create after a %s is not repeated: the message says what happened, the description that the agent may exist',
		async (kind, message) => {
			await fault(kind, 'POST', AGENTS, 1);
			const error = await failedRun(createAgent);
			expect({ error, attempts: await attempts('POST', AGENTS, 1) }).toEqual({
				error: expect.stringMatching(message),
				attempts: [0],
			});
			expect(error).toMatch(MAY_EXIST);
		},
	);
});

describe(`n8n ${n8nVersion()}: the credential dialog's test`, () => {
	const test_ = (data: { baseUrl: string; apiKey: string }) =>
		stack.api.request<{ status: string; message: string }>('POST', '/rest/credentials/test', {
			credentials: {
				id: stack.credential.id,
				name: stack.credential.name,
				type: 'voiceAiApi',
				data: { ...data, authHeader: 'bearer' },
			},
		});

	test('a revoked key: the message says the key was refused and what to do', async () => {
		const key = await stack.admin.request<{ id: string; apiKey: string }>(
			'POST',
			`/__sandbox/orgs/${stack.org.id}/keys`,
			{ name: 'revoked by the fault suite' },
		);
		expect(await test_({ baseUrl: stack.sandbox.baseUrl, apiKey: key.apiKey })).toEqual({
			status: 'OK',
			message: expect.any(String),
		});
		await stack.admin.request('POST', `/__sandbox/keys/${key.id}/revoke`);
		const revoked = await test_({ baseUrl: stack.sandbox.baseUrl, apiKey: key.apiKey });
		expect(revoked).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The API key was refused: .*revoked/),
		});
		expect(revoked.message).not.toContain(key.apiKey);
	});

	test.each([
		['ftp://', () => stack.sandbox.baseUrl.replace(/^http:/, 'ftp:')],
		['no scheme', () => stack.sandbox.baseUrl.replace(/^http:\/\//, '')],
	])('a base URL with %s: the message names the Base URL', async (_, baseUrl) => {
		expect(await test_({ baseUrl: baseUrl(), apiKey: stack.org.apiKey })).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The Base URL is not an http:\/\/ or https:\/\/ address/),
		});
	});
});

describe(`n8n ${n8nVersion()}: a base URL is what the URL parser reads, and refused by name before anything is sent`, () => {
	let other: Loopback;
	beforeAll(async () => {
		other = await startLoopback();
	});
	afterAll(async () => await other.close());
	beforeEach(() => forgetRequests(other));

	const sandboxHost = () => new URL(stack.sandbox.baseUrl).host;
	const CASES: Array<[string, () => string, () => RegExp]> = [
		[
			'another host, a backslash, then @ and the service host',
			() => `${other.url}\\@${sandboxHost()}`,
			() => new RegExp(`^holds a backslash .*reads the host as ${other.url}\\)`),
		],
		[
			'the service host, a backslash, then @ and another host',
			() => `${stack.sandbox.baseUrl}\\@${new URL(other.url).host}`,
			() => new RegExp(`^holds a backslash .*reads the host as ${stack.sandbox.baseUrl}\\)`),
		],
		['a query', () => `${stack.sandbox.baseUrl}/?v=2`, () => /^holds a query \(\?\) or a fragment/],
		['a fragment', () => `${stack.sandbox.baseUrl}/#`, () => /^holds a query \(\?\) or a fragment/],
	];

	const sandboxRequests = async () =>
		await stack.admin.request<unknown[]>('GET', `/__sandbox/requests?org=${stack.org.id}`);

	test.each(CASES)(
		'%s: the credential test refuses it naming the Base URL',
		async (_, baseUrl, problem) => {
			const result = await stack.api.request<{ status: string; message: string }>(
				'POST',
				'/rest/credentials/test',
				{
					credentials: {
						id: stack.credential.id,
						name: stack.credential.name,
						type: 'voiceAiApi',
						data: { baseUrl: baseUrl(), apiKey: stack.org.apiKey, authHeader: 'bearer' },
					},
				},
			);
			expect(result.status).toBe('Error');
			expect(result.message.startsWith('The Base URL ')).toBe(true);
			expect(result.message.slice('The Base URL '.length)).toMatch(problem());
			expect({ other: other.requests, sandbox: await sandboxRequests() }).toEqual({
				other: [],
				sandbox: [],
			});
		},
	);

	test.each(CASES)(
		'%s: the node refuses it naming the Base URL',
		async (what, baseUrl, problem) => {
			const credential = await stack.api.createVoiceAiCredential(
				{ baseUrl: baseUrl(), apiKey: stack.org.apiKey },
				`Voice AI base URL: ${what}`,
			);
			const workflow = await stack.api.importWorkflow(
				chain(`base URL: ${what}`, [voiceAiNode('Voice AI', listNames({}))]),
				{ voiceAiApi: credential },
			);
			const error = await failedRun(workflow);
			const prefix = 'The Voice AI credential has no valid base URL: the Base URL ';
			expect(error.startsWith(prefix)).toBe(true);
			expect(error.slice(prefix.length)).toMatch(problem());
			expect({ other: other.requests, sandbox: await sandboxRequests() }).toEqual({
				other: [],
				sandbox: [],
			});
		},
	);
});
