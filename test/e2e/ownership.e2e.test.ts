/**
 * One account, one webhook, in a real n8n: several workflows with a Voice AI Trigger for the same
 * account, published, unpublished and test-listened through n8n's own REST API, fed by the sandbox
 * acting as the service (it delivers to whatever URL the account holds). After every step, the next
 * service delivery must run the published holder exactly once.
 */
import { randomUUID } from 'node:crypto';

import { productionToken } from '../../nodes/VoiceAi/accountOwnership/registration';
import { NODE_TYPES, pollUntil, type SavedWorkflow, type WorkflowJson } from '../../harness/n8n';
import { startStack, type Stack } from '../../harness/stack';

const TRIGGER = 'Voice AI Trigger';

let stack: Stack;
let agentId: string;

function triggerWorkflow(name: string, parameters: Record<string, unknown> = {}): WorkflowJson {
	return {
		name,
		nodes: [
			{
				name: TRIGGER,
				type: NODE_TYPES.trigger,
				typeVersion: 1,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { output: 'variables', options: {}, whenOwnerUnknown: 'listen', ...parameters },
				credentials: { voiceAiApi: { id: 'placeholder', name: 'placeholder' } },
			},
			{
				name: 'Done',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		] as WorkflowJson['nodes'],
		connections: { [TRIGGER]: { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

async function create(
	name: string,
	parameters: Record<string, unknown> = {},
): Promise<SavedWorkflow> {
	return await stack.api.importWorkflow(triggerWorkflow(name, parameters), {
		voiceAiApi: stack.credential,
	});
}

function productionUrl(workflow: SavedWorkflow): string {
	return stack.api.productionWebhookUrl(stack.n8n.webhookBase, workflow, TRIGGER);
}

async function accountUrl(): Promise<string | undefined> {
	const url = await stack.admin.accountWebhook(stack.org.id);
	if (!url) return undefined;
	const parsed = new URL(url);
	parsed.searchParams.delete('token');
	return parsed.toString();
}

async function pointsAt(url: string, what: string): Promise<void> {
	await pollUntil(async () => (await accountUrl()) === url, { timeoutMs: 30_000, what });
}

async function executions(workflow: SavedWorkflow, mode?: string): Promise<number> {
	const list = await stack.api.listExecutions(workflow.id);
	return list.filter((e) => mode === undefined || e.mode === mode).length;
}

/** The service completes a conversation and delivers it; waits until the delivery is settled. */
async function serviceDelivers(): Promise<{ conversationId: string; codes: number[] }> {
	const { conversationId } = await stack.admin.simulateConversation(stack.org.id, {
		agentId,
		variables: { name: `caller ${randomUUID().slice(0, 6)}` },
	});
	const delivery = await pollUntil(
		async () => {
			const all = await stack.admin.deliveries(stack.org.id);
			const mine = all.find((d) => d.conversationId === conversationId && d.target === 'account');
			return mine && mine.status !== 'pending' ? mine : undefined;
		},
		{ timeoutMs: 60_000, what: `the delivery of ${conversationId}` },
	);
	return { conversationId, codes: delivery.responseCodes };
}

/** After a step, the next delivery runs `holder` exactly once and none of `others`. */
async function nextDeliveryRunsOnly(holder: SavedWorkflow, others: SavedWorkflow[]): Promise<void> {
	const before = await executions(holder, 'webhook');
	const othersBefore = await Promise.all(others.map((wf) => executions(wf)));
	const { codes } = await serviceDelivers();
	expect(codes[codes.length - 1]).toBe(200);
	await pollUntil(async () => (await executions(holder, 'webhook')) === before + 1, {
		what: `one new run of "${holder.name}"`,
	});
	expect(await Promise.all(others.map((wf) => executions(wf)))).toEqual(othersBefore);
}

/** n8n reports a trigger's activation error only through the publication status (it retries it). */
async function publicationError(workflow: SavedWorkflow): Promise<string> {
	return await pollUntil(
		async () => {
			const status = await stack.api.request<unknown>(
				'GET',
				`/rest/workflows/${workflow.id}/publication-status`,
			);
			const text = JSON.stringify(status);
			return text.includes('held by') ? text : undefined;
		},
		{ timeoutMs: 30_000, what: `the publication error of "${workflow.name}"` },
	);
}

let x: SavedWorkflow;
let y: SavedWorkflow;

beforeAll(async () => {
	stack = await startStack();
	const state = await stack.admin.state<{ agents: Array<{ id: string }> }>(stack.org.id);
	agentId = state.agents[0].id;
	x = await create('CRM sync (X)');
	y = await create('Draft (Y)', { whenOwnerUnknown: 'refuse' });
	await stack.api.activateWorkflow(x);
	await pointsAt(productionUrl(x), 'the account webhook on X after publishing X');
}, 180_000);

afterAll(async () => {
	await stack?.close();
});

test('scenario 1: after a test listen in unpublished Y, the next service delivery runs published X exactly once', async () => {
	await stack.api.listenForTestEvent(y, TRIGGER);
	await pointsAt(
		productionUrl(y).replace('/webhook/', '/webhook-test/'),
		"the account webhook on Y's test URL",
	);
	const beforeY = await executions(y, 'manual');
	const { codes } = await serviceDelivers();
	expect(codes[codes.length - 1]).toBe(200);
	await pollUntil(async () => (await executions(y, 'manual')) === beforeY + 1, {
		what: 'the test run of Y',
	});

	await pointsAt(productionUrl(x), 'the account webhook back on X after the test');
	await nextDeliveryRunsOnly(x, [y]);
});

test('scenario 2: publishing B for the same account fails naming X; X keeps receiving', async () => {
	const b = await create('Second sync (B)');
	await stack.api.request('POST', `/rest/workflows/${b.id}/activate`, {
		versionId: (await stack.api.getWorkflow(b.id)).versionId,
	});
	const error = await publicationError(b);
	expect(error).toContain(`held by the published workflow \\"${x.name}\\" (ID ${x.id})`);
	expect(await accountUrl()).toBe(productionUrl(x));
	await stack.api.deactivateWorkflow(b);
	await nextDeliveryRunsOnly(x, [b]);
});

test('scenario 2 with take-over: C receives; after unpublishing C, X receives again', async () => {
	const c = await create('Take-over sync (C)', { whenHeld: 'takeOver' });
	await stack.api.activateWorkflow(c);
	await pointsAt(productionUrl(c), 'the account webhook on C after the take-over');
	await nextDeliveryRunsOnly(c, [x]);

	await stack.api.deactivateWorkflow(c);
	await pointsAt(productionUrl(x), 'the account webhook back on X after unpublishing C');
	await nextDeliveryRunsOnly(x, [c]);
});

test('scenario 3: every delivered value reaches the workflow, whether sent as JSON, as text holding JSON or as form fields', async () => {
	const url = new URL(productionUrl(x));
	url.searchParams.set('token', productionToken(stack.org.apiKey, productionUrl(x)));
	const delivery = {
		conversation_id: 'c1',
		variables: { name: 'Fay' },
		call_duration_sec: 93,
		transcript: 'Agent: Hello, Fay…',
		recording_url: 'https://recordings.example.com/c1.mp3',
		metadata: { campaign: 'spring' },
	};
	const bodies: Array<[string, string]> = [
		['application/json', JSON.stringify(delivery)],
		['text/plain', JSON.stringify({ ...delivery, conversation_id: 'c1-text' })],
		[
			'application/x-www-form-urlencoded',
			new URLSearchParams({
				conversation_id: 'c1-form',
				variables: '{"name":"Fay"}',
				call_duration_sec: '93',
			}).toString(),
		],
	];
	const before = await executions(x, 'webhook');
	for (const [contentType, body] of bodies) {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': contentType },
			body,
		});
		expect([contentType, res.status, await res.text()]).toEqual([
			contentType,
			200,
			expect.stringContaining('"started":true'),
		]);
	}
	const list = await pollUntil(
		async () => {
			const runs = (await stack.api.listExecutions(x.id)).filter((e) => e.mode === 'webhook');
			const newest = runs.sort((a, b) => Number(b.id) - Number(a.id)).slice(0, bodies.length);
			return runs.length === before + bodies.length && newest.every((e) => e.status === 'success')
				? newest
				: undefined;
		},
		{ what: 'the three runs to finish' },
	);
	const outputs = await Promise.all(
		list.map(async (e) => (await stack.api.getExecution(e.id)).outputs[TRIGGER][0]),
	);
	const byId = Object.fromEntries(
		outputs.map((json) => [(json._voiceAi as { conversationId: string }).conversationId, json]),
	);
	expect(byId.c1).toMatchObject({
		name: 'Fay',
		conversation: {
			call_duration_sec: 93,
			transcript: delivery.transcript,
			recording_url: delivery.recording_url,
			metadata: { campaign: 'spring' },
		},
	});
	expect(byId['c1-text']).toMatchObject({
		name: 'Fay',
		conversation: { call_duration_sec: 93, metadata: { campaign: 'spring' } },
	});
	expect(byId['c1-form']).toMatchObject({ name: 'Fay', conversation: { call_duration_sec: '93' } });
});

test('after an n8n restart X keeps the account; its next delivery tells n8n who holds it, so a test listen in Y gives it back to X', async () => {
	await stack.n8n.restart();
	await stack.api.login();
	// n8n 2.x does not run a trigger's publish step again on start: the account keeps pointing at X.
	expect(await accountUrl()).toBe(productionUrl(x));
	// Before any delivery, this n8n cannot tell that X holds the account: Y's test listen is refused.
	await stack.api.listenForTestEvent(y, TRIGGER).catch(() => undefined);
	await new Promise((r) => setTimeout(r, 2_000));
	expect(await accountUrl()).toBe(productionUrl(x));
	await pollUntil(async () => (await serviceDelivers()).codes.at(-1) === 200, {
		timeoutMs: 60_000,
		what: 'X serving again after the restart',
	});
	await nextDeliveryRunsOnly(x, [y]);

	await stack.api.listenForTestEvent(y, TRIGGER);
	await pointsAt(
		productionUrl(y).replace('/webhook/', '/webhook-test/'),
		"the account webhook on Y's test URL after the restart",
	);
	await serviceDelivers();
	await pointsAt(productionUrl(x), 'the account webhook back on X after the test');
	await nextDeliveryRunsOnly(x, [y]);
}, 240_000);
