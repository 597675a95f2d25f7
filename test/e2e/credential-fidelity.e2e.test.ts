/**
 * The engine harness's credential handling against the n8n it copies (issue 43). harness/engine/
 * credentials.ts writes out n8n's CredentialsTester (testCredential) and credentials helper
 * (HarnessCredentialsHelper: defaults, authenticate) for the engine suites; n8n releases can change
 * both. Here one table of Voice AI API credentials goes through the harness and through a real n8n of
 * the line under test (startStack), and what can be seen from outside must be the same:
 * - the credential test: harness testCredential() against n8n's POST /rest/credentials/test, its
 *   {status, message} exactly;
 * - a real request: Contact → Get List Names run by runNode() and by a workflow in n8n, compared by
 *   what the service received (method, path, the Authorization and X-API-Key headers) and the outcome
 *   (the node's items, errors as items through onError 'continueRegularOutput').
 * Both sides reach the stack's sandbox through one recording front (a loopback that also serves a
 * path prefix); a second loopback answers every request with a redirect to a third, which must see
 * nothing; one base URL is a closed local port. Each step runs on one side at a time (n8n, then the
 * harness), and the requests the loopbacks recorded during it are that side's. The harness copies
 * n8n 2.40: the one difference asserted as such is n8n 1.x's own credential test messages for a
 * redirect and a refused connection (Expected.n8n1Message).
 */
import '../../harness/engineEnv';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { runNode, testCredential } from '../../harness/engine';
import { json, startLoopback, type Loopback, type SeenRequest } from '../../harness/loopback';
import { chain, voiceAiNode, START } from '../../harness/manualWorkflow';
import { freePort, n8nVersion } from '../../harness/n8n';
import { startStack, type Stack } from '../../harness/stack';

const NODE = 'Voice AI';
const PARAMETERS = {
	resource: 'contact',
	operation: 'getListNames',
	returnAll: true,
	options: { maxAttempts: 1 },
};
/** The path prefix the front serves the sandbox under, as a gateway in front of the API would. */
const PREFIX = '/gateway/v1';

let stack: Stack;
/** Records every request and passes it to the sandbox (under PREFIX too). */
let front: Loopback;
/** Answers every request with a 302 to `other`. */
let redirecting: Loopback;
let other: Loopback;
let closedPort: number;

beforeAll(async () => {
	[stack, other, closedPort] = await Promise.all([
		startStack({ n8n: { readyTimeoutMs: 300_000 } }),
		startLoopback((_, res) => json(res, 200, { message: 'the other origin answered' })),
		freePort(),
	]);
	front = await startLoopback(async (request, res) => {
		const path = request.url.startsWith(`${PREFIX}/`)
			? request.url.slice(PREFIX.length)
			: request.url;
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(request.headers))
			if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
				headers[name] = value;
		const answer = await fetch(`${stack.sandbox.baseUrl}${path}`, {
			method: request.method,
			headers,
			body: ['GET', 'HEAD'].includes(request.method) ? undefined : request.body,
			redirect: 'manual',
		});
		const contentType = answer.headers.get('content-type');
		res.writeHead(answer.status, contentType ? { 'Content-Type': contentType } : {});
		res.end(Buffer.from(await answer.arrayBuffer()));
	});
	redirecting = await startLoopback((request, res) => {
		res.writeHead(302, { Location: `${other.url}${request.url}` });
		res.end();
	});
}, 300_000);

afterAll(async () => {
	await front?.close();
	await redirecting?.close();
	await other?.close();
	await stack?.close();
});

type Data = { baseUrl: string; apiKey: string; authHeader: 'bearer' | 'xApiKey' };
/** What n8n shows for a case (pinned, so that a case cannot quietly test something else). */
interface Expected {
	test: 'OK' | 'Error';
	/** Which server the credential test's request reached, if any. */
	reaches?: 'front' | 'redirecting';
	/**
	 * A known difference between n8n lines: the credential test's message n8n 1.x shows where 2.x (and
	 * the harness, which copies 2.40) shows another. 1.x's CredentialsTester applies no rules to a
	 * redirect's status and words a refused connection itself.
	 */
	n8n1Message?: string;
}

/** The table: what, the credential's fields given the loopbacks and the org's key, what n8n shows. */
const CASES: Array<[string, () => Data, Expected]> = [
	[
		'the org key, bearer',
		() => ({ baseUrl: front.url, apiKey: key(), authHeader: 'bearer' }),
		{ test: 'OK', reaches: 'front' },
	],
	[
		'the org key, X-API-Key',
		() => ({ baseUrl: front.url, apiKey: key(), authHeader: 'xApiKey' }),
		{ test: 'OK', reaches: 'front' },
	],
	[
		'a wrong key',
		() => ({ baseUrl: front.url, apiKey: 'ct_not_a_key_of_this_account', authHeader: 'bearer' }),
		{ test: 'Error', reaches: 'front' },
	],
	[
		'a value not shaped like a key (X-API-Key)',
		() => ({ baseUrl: front.url, apiKey: 'not-a-key', authHeader: 'xApiKey' }),
		{ test: 'Error', reaches: 'front' },
	],
	[
		'a base URL with a trailing slash',
		() => ({ baseUrl: `${front.url}/`, apiKey: key(), authHeader: 'bearer' }),
		{ test: 'OK', reaches: 'front' },
	],
	[
		'a base URL with a path prefix',
		() => ({ baseUrl: `${front.url}${PREFIX}`, apiKey: key(), authHeader: 'xApiKey' }),
		{ test: 'OK', reaches: 'front' },
	],
	[
		'a base URL with a path prefix and a trailing slash',
		() => ({ baseUrl: `${front.url}${PREFIX}/`, apiKey: key(), authHeader: 'bearer' }),
		{ test: 'OK', reaches: 'front' },
	],
	[
		'an unreachable base URL (a closed local port)',
		() => ({ baseUrl: `http://127.0.0.1:${closedPort}`, apiKey: key(), authHeader: 'bearer' }),
		{ test: 'Error', n8n1Message: 'The service refused the connection - perhaps it is offline' },
	],
	[
		'a base URL answering a redirect',
		() => ({ baseUrl: redirecting.url, apiKey: key(), authHeader: 'bearer' }),
		{ test: 'Error', reaches: 'redirecting', n8n1Message: 'Request failed with status code 302' },
	],
	[
		'a base URL that is not http(s)',
		() => ({ baseUrl: 'ftp://127.0.0.1/voice-ai', apiKey: key(), authHeader: 'bearer' }),
		{ test: 'Error' },
	],
];

function key(): string {
	return stack.org.apiKey;
}

/** What a server received: method, path and the two headers that can carry the key. */
function received(requests: SeenRequest[]): unknown[] {
	return requests.map(({ method, url, headers }) => ({
		method,
		url,
		authorization: headers.authorization,
		xApiKey: headers['x-api-key'],
	}));
}

/** The requests each loopback received while `step` ran. */
async function watching<T>(step: () => Promise<T>): Promise<{ outcome: T; received: unknown }> {
	const before = [front, redirecting, other].map((loopback) => loopback.requests.length);
	const outcome = await step();
	const [atFront, atRedirecting, atOther] = [front, redirecting, other].map((loopback, index) =>
		received(loopback.requests.slice(before[index])),
	);
	return { outcome, received: { front: atFront, redirecting: atRedirecting, other: atOther } };
}

/** Plain JSON, as n8n stores an execution's items. */
function plain(value: unknown): unknown {
	return JSON.parse(JSON.stringify(value)) as unknown;
}

let credentialCount = 0;

async function n8nTest(data: Data) {
	const credential = await stack.api.createVoiceAiCredential(
		data,
		`fidelity test ${++credentialCount}`,
	);
	return await stack.api.request<{ status: string; message: string }>(
		'POST',
		'/rest/credentials/test',
		{ credentials: { id: credential.id, name: credential.name, type: 'voiceAiApi', data } },
	);
}

async function n8nRun(data: Data): Promise<unknown> {
	const credential = await stack.api.createVoiceAiCredential(
		data,
		`fidelity run ${++credentialCount}`,
	);
	const node = { ...voiceAiNode(NODE, PARAMETERS), onError: 'continueRegularOutput' as const };
	const saved = await stack.api.importWorkflow(chain('credential fidelity', [node]), {
		voiceAiApi: credential,
	});
	const execution = await stack.api.runWorkflow(saved, START);
	return { items: execution.outputs[NODE], error: execution.nodeErrors[NODE] };
}

/**
 * runNode's `items` are [] when the node failed; n8n's output then holds the input item passed on
 * (onError 'continueRegularOutput'), which runNode keeps in `outputs`: compared with that.
 */
async function harnessRun(data: Data): Promise<unknown> {
	const { outputs, error } = await runNode({
		parameters: PARAMETERS,
		credentials: { voiceAiApi: data as unknown as ICredentialDataDecryptedObject },
		continueOnFail: true,
	});
	return plain({
		items: (outputs[0] ?? []).map((item) => item.json),
		error: error && { message: error.message, description: error.description },
	});
}

describe(`the Voice AI API credential in n8n ${n8nVersion()} and in the harness`, () => {
	describe.each(CASES)('%s', (_, dataOf, expected) => {
		test('the credential test: the same status and message, the same requests', async () => {
			const data = dataOf();
			const seen = {
				n8n: await watching(async () => await n8nTest(data)),
				harness: await watching(
					async () =>
						await testCredential('voiceAiApi', data as unknown as ICredentialDataDecryptedObject),
				),
			};
			if (n8nVersion().startsWith('1.') && expected.n8n1Message) {
				// The known difference (see Expected): n8n 1.x's message, the harness's 2.x one.
				expect(seen.n8n.outcome.message).toBe(expected.n8n1Message);
				expect(seen.harness.outcome.message).not.toBe(expected.n8n1Message);
				seen.harness.outcome.message = expected.n8n1Message;
			}
			expect(seen.harness).toEqual(seen.n8n);
			expect(seen.n8n.outcome.status).toBe(expected.test);
			expect(seen.n8n.received).toEqual({
				front: expected.reaches === 'front' ? [expect.anything()] : [],
				redirecting: expected.reaches === 'redirecting' ? [expect.anything()] : [],
				other: [],
			});
		});

		test('Contact → Get List Names: the same requests and the same items or error', async () => {
			const data = dataOf();
			const seen = {
				n8n: await watching(async () => await n8nRun(data)),
				harness: await watching(async () => await harnessRun(data)),
			};
			expect(seen.harness).toEqual(seen.n8n);
			expect((seen.n8n.received as { other: unknown[] }).other).toEqual([]);
		});
	});
});
