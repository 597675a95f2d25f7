/**
 * In a real n8n (the package installed as users install it): a base URL that redirects to another
 * origin. The credential test of n8n's editor, a workflow run with a GET and a POST operation, and
 * publishing a workflow with the Voice AI Trigger send nothing to the other origin, for every 3xx
 * status and both header forms. (The engine suites check the same and more in test/hostile/redirects.test.ts.)
 */
import type { Loopback } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { pollUntil, type WorkflowJson } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';
import { manualTrigger } from '../../harness/manualWorkflow';

const STATUSES = [301, 302, 303, 307, 308];
const HEADERS = ['bearer', 'xApiKey'] as const;

const stack = stackForFile();
let front: Loopback;
let other: Loopback;
let status = 302;

beforeAll(async () => {
	other = await startLoopback((_, res) => json(res, 200, { message: 'the other origin answered' }));
	front = await startLoopback((request, res) => {
		res.writeHead(status, { Location: `${other.url}${request.url}` });
		res.end();
	});
}, 180_000);

afterAll(async () => {
	await front?.close();
	await other?.close();
});

const credentialData = (authHeader: (typeof HEADERS)[number]) => ({
	baseUrl: front.url,
	apiKey: stack.org.apiKey,
	authHeader,
});

function actions(): WorkflowJson {
	const node = (name: string, parameters: Record<string, unknown>, y: number) => ({
		name,
		type: 'n8n-nodes-voiceai.voiceAi',
		typeVersion: 1,
		position: [260, y] as [number, number],
		parameters: { ...parameters, options: { maxAttempts: 1 } },
		onError: 'continueRegularOutput',
		credentials: { voiceAiApi: { id: 'voiceai-credential', name: 'Voice AI account' } },
	});
	return {
		name: 'e2e redirects',
		nodes: [
			manualTrigger(),
			node('GET', { resource: 'contact', operation: 'getListNames', returnAll: true }, 0),
			node(
				'POST',
				{
					resource: 'webhook',
					operation: 'set',
					whenTriggerHolds: 'takeOver',
					webhookUrl: 'https://crm.example.com/hook?token=e2e-webhook-token',
				},
				160,
			),
		],
		connections: {
			Start: {
				main: [
					[
						{ node: 'GET', type: 'main', index: 0 },
						{ node: 'POST', type: 'main', index: 0 },
					],
				],
			},
		},
		settings: { executionOrder: 'v1' },
	};
}

describe.each(HEADERS)('key in %s', (authHeader) => {
	/** The service answers `code` from now on; a credential named `name` with the key in `authHeader`. */
	const redirectingWith = async (code: number, name: string) => {
		status = code;
		return await stack.api.createVoiceAiCredential(credentialData(authHeader), name);
	};

	it.each(STATUSES)(
		"%s: n8n's credential test fails naming the redirect; nothing reaches the other origin",
		async (code) => {
			const credential = await redirectingWith(code, `redirect ${authHeader} ${code}`);
			const outcome = await stack.api.request<{ status: string; message: string }>(
				'POST',
				'/rest/credentials/test',
				{
					credentials: {
						id: credential.id,
						name: credential.name,
						type: 'voiceAiApi',
						data: credentialData(authHeader),
					},
				},
			);
			expect(outcome).toEqual({
				status: 'Error',
				message: expect.stringMatching(new RegExp(`answered ${code}, a redirect`)),
			});
			expect(other.requests).toEqual([]);
		},
	);

	it.each(STATUSES)(
		"%s: a workflow run's GET and POST fail naming the other origin; nothing reaches it",
		async (code) => {
			const credential = await redirectingWith(code, `redirect run ${authHeader} ${code}`);
			const saved = await stack.api.importWorkflow(actions(), { voiceAiApi: credential });
			const execution = await stack.api.runWorkflow(saved, 'Start');
			for (const name of ['GET', 'POST']) {
				expect(execution.outputs[name]).toEqual([
					expect.objectContaining({
						error: `Voice AI answered ${code}, a redirect to ${other.url}; the node does not follow redirects`,
						httpCode: String(code),
					}),
				]);
			}
			expect(other.requests).toEqual([]);
		},
	);
});

it('publishing a workflow with the Voice AI Trigger: the registration meets a 307 and goes nowhere else', async () => {
	// Publishing first lists the key's agents (to tell organizations apart): that answers; the rest redirects.
	front.handle((request, res) => {
		if (request.method === 'GET' && request.url === '/callback/standardCampaign')
			return json(res, 200, []);
		res.writeHead(307, { Location: `${other.url}${request.url}` });
		res.end();
	});
	const before = front.requests.length;
	const credential = await stack.api.createVoiceAiCredential(
		credentialData('bearer'),
		'redirect trigger',
	);
	const saved = await stack.api.importWorkflow(
		{
			name: 'e2e redirect trigger',
			nodes: [
				{
					name: 'Conversation completed',
					type: 'n8n-nodes-voiceai.voiceAiTrigger',
					typeVersion: 1,
					position: [0, 0],
					webhookId: 'c0ffee00-0000-4000-8000-000000000307',
					parameters: { output: 'variables', options: {}, whenOwnerUnknown: 'listen' },
					credentials: { voiceAiApi: { id: 'voiceai-credential', name: 'Voice AI account' } },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		},
		{ voiceAiApi: credential },
	);
	const current = await stack.api.getWorkflow(saved.id);
	await stack.api
		.request('POST', `/rest/workflows/${saved.id}/activate`, { versionId: current.versionId })
		.catch(() => undefined);
	await pollUntil(
		async () =>
			front.requests
				.slice(before)
				.some((request) => request.method === 'POST' && request.url === '/webhook/insert-webhook'),
		{
			timeoutMs: 20_000,
			what: 'the trigger to try to register',
		},
	);
	// n8n retries a failing activation (1, 2, 4, 8 s apart); its publication status then carries the node's error.
	const publication = await pollUntil(
		async () => {
			const answer = JSON.stringify(
				await stack.api.request('GET', `/rest/workflows/${saved.id}/publication-status`),
			);
			return answer.includes('"in_progress"') ? undefined : answer;
		},
		{ timeoutMs: 45_000, intervalMs: 500, what: 'the publication to end' },
	);
	expect(publication).toContain(
		`Voice AI answered 307, a redirect to ${other.url}; the node does not follow redirects`,
	);
	expect(
		front.requests.slice(before).filter((request) => request.url === '/webhook/insert-webhook')
			.length,
	).toBeGreaterThanOrEqual(1);
	expect(other.requests).toEqual([]);
}, 90_000);
