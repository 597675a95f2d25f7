/**
 * Issue 51 in a real n8n: every run ends. Webhook Set with 4 items whose first POST is answered 429
 * finishes, and a trigger publish of the same n8n process after it finishes too (a stuck Set held the
 * process-wide ownership queue for good); Timeout (Seconds) bounds an answer that stops half way;
 * Stop during a stalled answer ends the node's waits at once (its connection closes, the ownership
 * queue is free again). A loopback server plays the service where the sandbox has no reason to
 * answer so; the trigger publishes against the sandbox. One n8n for the file.
 */
import type { ServerResponse } from 'node:http';

import { AccountWebhook } from '../../harness/accountWebhook';
import { type Loopback, json, startLoopback } from '../../harness/loopback';
import { START, chain, itemsNode, voiceAiNode } from '../../harness/manualWorkflow';
import { type CredentialRef, n8nVersion, pollUntil } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const stack = stackForFile();
let service: Loopback;
let serviceCredential: CredentialRef;
let rig: AccountWebhook;
/** Answers a test left open: ended after it. */
const open = new Set<ServerResponse>();

beforeAll(async () => {
	service = await startLoopback();
	rig = new AccountWebhook(stack);
	serviceCredential = await stack.api.createVoiceAiCredential(
		{ baseUrl: service.url, apiKey: 'ct_liveness_e2e_0123456789' },
		'Voice AI (scripted service)',
	);
}, 60_000);
afterAll(async () => await service?.close());
afterEach(() => {
	for (const res of open) res.destroy();
	open.clear();
	service.requests.length = 0;
});

const phones = (count: number) =>
	Array.from({ length: count }, (_, index) => ({ json: { phone: `+1415555${2000 + index}` } }));
async function workflowOf(name: string, parameters: Record<string, unknown>, items = 1) {
	const json = chain(name, [
		itemsNode('Items', phones(items)),
		voiceAiNode('Voice AI', parameters),
	]);
	return await stack.api.importWorkflow(json, { voiceAiApi: serviceCredential });
}
const sipGet = (options: Record<string, unknown>) => ({
	resource: 'sip',
	operation: 'get',
	phoneNumber: '={{ $json.phone }}',
	options,
});
const webhookSet = (options: Record<string, unknown> = {}) => ({
	resource: 'webhook',
	operation: 'set',
	webhookUrl: 'https://crm.example.com/hook',
	whenTriggerHolds: 'takeOver',
	options,
});
/** Headers and the start of a body, then nothing. */
const stall = (res: ServerResponse) => {
	open.add(res);
	res.writeHead(200, { 'Content-Type': 'application/json' });
	res.write('{"message":');
};

/** Starts a manual run without waiting for it; its id. */
async function startRun(workflow: { id: string }): Promise<string> {
	const started = await stack.api.request<{ executionId?: string }>(
		'POST',
		`/rest/workflows/${workflow.id}/run`,
		{
			workflowData: await stack.api.request('GET', `/rest/workflows/${workflow.id}`),
			triggerToStartFrom: { name: START },
		},
	);
	if (!started.executionId) throw new Error(`n8n did not start a run: ${JSON.stringify(started)}`);
	return started.executionId;
}

/** A trigger published now: its registration reaches the sandbox (the ownership queue is free). */
async function publishTrigger(name: string) {
	const trigger = await rig.trigger(name, {
		options: {},
		whenOwnerUnknown: 'listen',
		whenHeld: 'takeOver',
	});
	await stack.api.activateWorkflow(trigger);
	await rig.pointsAt(
		rig.productionUrl(trigger),
		`the account webhook on "${name}" after publishing it`,
	);
	await stack.api.deactivateWorkflow(trigger);
}

describe(`n8n ${n8nVersion()}: every run ends (issue 51)`, () => {
	it('Webhook Set with 4 items whose first POST is answered 429 finishes; a trigger publish after it finishes', async () => {
		let limited = 0;
		service.handle((request, res) => {
			if (request.method === 'GET') return json(res, 200, []);
			if (limited++ === 0) return json(res, 429, {}, { 'Retry-After': '1' });
			json(res, 200, { message: 'Webhook updated' });
		});
		const workflow = await workflowOf('liveness: Webhook Set, 4 items', webhookSet(), 4);
		const execution = await stack.api.runWorkflow(workflow, START, { timeoutMs: 45_000 });
		expect(execution.status).toBe('success');
		expect(execution.outputs['Voice AI']).toHaveLength(4);
		expect(service.requests.filter((request) => request.method === 'POST')).toHaveLength(5);

		await publishTrigger('liveness: published after the Set');
	}, 180_000);

	it('Timeout (Seconds) 2 bounds an answer that stops half way', async () => {
		service.handle((_, res) => stall(res));
		const workflow = await workflowOf(
			'liveness: SIP Get, stalled answer, Timeout 2 s',
			sipGet({ timeoutSeconds: 2, maxAttempts: 1 }),
		);
		const started = Date.now();
		const execution = await stack.api.runWorkflow(workflow, START, { timeoutMs: 30_000 });
		expect(Date.now() - started).toBeLessThan(15_000);
		expect(execution.status).toBe('error');
		expect(String(execution.error)).toMatch(/^Voice AI did not answer in time/);
	}, 60_000);

	it('Stop during a stalled answer ends the run at once, and frees the ownership queue', async () => {
		let closedAt = 0;
		service.handle((request, res) => {
			if (request.method === 'GET') return json(res, 200, []);
			res.on('close', () => (closedAt = Date.now()));
			stall(res);
		});
		const workflow = await workflowOf(
			'liveness: Webhook Set, stalled answer, Timeout 600 s',
			webhookSet({ timeoutSeconds: 600 }),
		);
		const id = await startRun(workflow);
		await pollUntil(async () => service.requests.some((r) => r.method === 'POST') || undefined, {
			timeoutMs: 30_000,
			what: 'the POST of Webhook Set',
		});
		const stoppedAt = Date.now();
		await stack.api.request('POST', `/rest/executions/${id}/stop`, {});
		await pollUntil(async () => closedAt > 0 || undefined, {
			timeoutMs: 10_000,
			what: 'the stalled answer closed by the node',
		});
		expect(closedAt - stoppedAt).toBeLessThan(3_000);
		await pollUntil(
			async () => {
				const { status } = await stack.api.request<{ status: string }>(
					'GET',
					`/rest/executions/${id}`,
				);
				return ['canceled', 'error', 'crashed'].includes(status) || undefined;
			},
			{ timeoutMs: 10_000, what: 'the stopped run to end' },
		);
		// The Set held the process-wide ownership queue while it waited: a publish now goes through.
		await publishTrigger('liveness: published after the Stop');
	}, 180_000);
});
