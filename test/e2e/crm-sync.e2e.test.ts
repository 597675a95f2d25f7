/**
 * examples/crm-sync.json in a real n8n, imported as shipped (its bytes, only the credential chosen):
 * published through n8n's API, fed by the sandbox's deliveries, each conversation reaching the node
 * where a CRM's upsert goes once; forged deliveries refused; survives an n8n restart.
 */
import { productionToken } from '../../nodes/VoiceAi/accountOwnership/registration';
import { postDelivery } from '../../harness/accountWebhook';
import { NODE_TYPES, loadExample, pollUntil, type SavedWorkflow } from '../../harness/n8n';
import type { Delivery } from '../../harness/sandboxAdmin';
import { stackForFile } from '../../harness/stack';

const TRIGGER = 'Conversation completed';
/** The node a user replaces with their CRM's "create or update contact". */
const CRM = 'Upsert contact (your CRM here)';

interface Caller {
	name: string;
	phone: string;
	email: string;
	intent: string;
}

const CALLERS: Caller[] = [
	{
		name: 'Ada Lovelace',
		phone: '+14155550201',
		email: 'ada@example.com',
		intent: 'book a cleaning',
	},
	{
		name: 'Grace Hopper',
		phone: '+14155550202',
		email: 'grace@example.com',
		intent: 'move an appointment',
	},
	{
		name: 'Alan Turing',
		phone: '+14155550203',
		email: 'alan@example.com',
		intent: 'ask about invoices',
	},
];

const stack = stackForFile();
let workflow: SavedWorkflow;
let productionUrl: string;
let agentId: string;

beforeAll(async () => {
	workflow = await stack.api.importWorkflow(loadExample('crm-sync'), {
		voiceAiApi: stack.credential,
	});
	productionUrl = stack.api.productionWebhookUrl(stack.n8n.webhookBase, workflow, TRIGGER);
	const state = await stack.admin.state<{ agents: Array<{ id: string }> }>(stack.org.id);
	agentId = state.agents[0].id;
}, 180_000);

async function simulate(callers: Caller[]): Promise<string[]> {
	const ids: string[] = [];
	for (const caller of callers) {
		const { conversationId } = await stack.admin.simulateConversation(stack.org.id, {
			agentId,
			variables: { ...caller },
		});
		ids.push(conversationId);
	}
	return ids;
}

async function waitDelivered(conversationIds: string[]): Promise<Delivery[]> {
	return await pollUntil(
		async () => {
			const all = await stack.admin.deliveries(stack.org.id);
			const mine = all.filter((d) => conversationIds.includes(d.conversationId));
			if (mine.some((d) => d.status === 'failed')) {
				throw new Error(`a delivery failed: ${JSON.stringify(mine)}\n${stack.n8n.tail()}`);
			}
			return mine.length === conversationIds.length && mine.every((d) => d.status === 'delivered')
				? mine
				: undefined;
		},
		{ timeoutMs: 30_000, what: `deliveries of ${conversationIds.join(', ')}` },
	);
}

/** One conversation of `caller`, delivered; its id. */
async function deliveredOnce(caller: Caller): Promise<string> {
	const [id] = await simulate([caller]);
	await waitDelivered([id]);
	return id;
}

/** n8n restarted; the workflow is active again once its production URL answers (401 without the token, not 404). */
async function restartN8n(): Promise<void> {
	await stack.n8n.restart();
	await stack.api.login();
	await pollUntil(async () => (await postToProductionUrl(productionUrl)) === 401, {
		what: 'the production webhook after the restart',
	});
}

async function postToProductionUrl(url: string): Promise<number> {
	const res = await postDelivery(url, {
		event: 'conversation.completed',
		conversation_id: 'conv_forged',
		source: 'account_webhook',
		agent_id: agentId,
		chatbot_id: null,
		completed_at: new Date().toISOString(),
		variables: {
			name: 'Mallory',
			phone: '+14155550666',
			email: 'mallory@example.com',
			intent: 'forge',
		},
	});
	await res.text();
	return res.status;
}

/** Every contact that reached the CRM node in a published run: what a CRM in its place would have received. */
async function contacts(): Promise<Array<Record<string, unknown>>> {
	const runs = (await stack.api.listExecutions(workflow.id)).filter(
		(run) => run.mode === 'webhook',
	);
	const reached: Array<Record<string, unknown>> = [];
	for (const run of runs)
		reached.push(...((await stack.api.getExecution(run.id)).outputs[CRM] ?? []));
	return reached;
}

async function executionCount(): Promise<number> {
	return (await stack.api.listExecutions(workflow.id)).length;
}

test('n8n loads the package as an installed community package', async () => {
	const types = await stack.api.nodeTypeNames();
	expect(types).toEqual(expect.arrayContaining([NODE_TYPES.action, NODE_TYPES.trigger]));
});

test('publishing the workflow registers its production URL, with the trigger token, as the account webhook', async () => {
	await stack.api.activateWorkflow(workflow);
	const registered = await pollUntil(() => stack.admin.accountWebhook(stack.org.id), {
		what: 'the account webhook',
	});
	expect(productionUrl.startsWith(`${stack.n8n.baseUrl}/webhook/`)).toBe(true);
	const expected = new URL(productionUrl);
	expected.searchParams.set('token', productionToken(stack.org.apiKey, productionUrl));
	expect(registered).toBe(expected.toString());
});

test('each completed conversation runs the workflow once and reaches the CRM node once', async () => {
	const ids = await simulate(CALLERS);
	const deliveries = await waitDelivered(ids);
	expect(deliveries.map((d) => d.responseCodes)).toEqual(ids.map(() => [200]));

	const executions = await stack.api.waitForExecutions(workflow.id, { count: CALLERS.length });
	expect(executions).toHaveLength(CALLERS.length);
	expect(executions.map((e) => [e.mode, e.status])).toEqual(
		CALLERS.map(() => ['webhook', 'success']),
	);

	const rows = await contacts();
	expect(rows).toHaveLength(CALLERS.length);
	CALLERS.forEach((caller, index) => {
		const matching = rows.filter((row) => row.conversation_id === ids[index]);
		expect(matching).toHaveLength(1);
		expect(matching[0]).toMatchObject({ ...caller, source: `agent ${agentId}` });
		expect(typeof matching[0].completed_at).toBe('string');
	});
});

test('a forged delivery is refused with 401 and starts no execution', async () => {
	const before = await executionCount();
	expect(await postToProductionUrl(productionUrl)).toBe(401);
	const wrongToken = new URL(productionUrl);
	wrongToken.searchParams.set('token', 'not-the-token');
	expect(await postToProductionUrl(wrongToken.toString())).toBe(401);
	expect(await executionCount()).toBe(before);

	// A genuine delivery afterwards is the only new execution.
	await deliveredOnce(CALLERS[0]);
	await stack.api.waitForExecutions(workflow.id, { count: before + 1 });
	expect(await executionCount()).toBe(before + 1);
	const rows = await contacts();
	expect(rows.filter((row) => row.name === 'Mallory')).toEqual([]);
});

test("the example's trigger (version 1.1) reads a delivery that n8n leaves unparsed (application/*+json)", async () => {
	expect(workflow.nodes.find((node) => node.name === TRIGGER)?.typeVersion).toBe(1.1);
	const before = await executionCount();
	const registered = (await stack.admin.accountWebhook(stack.org.id))!;
	const caller: Caller = {
		name: 'Dorothy Vaughan',
		phone: '+14155550206',
		email: 'dv@example.com',
		intent: 'vendor json',
	};
	const res = await fetch(registered, {
		method: 'POST',
		headers: { 'content-type': 'application/vnd.voiceai+json' },
		body: JSON.stringify({
			event: 'conversation.completed',
			conversation_id: 'conv_vendor_json',
			source: 'account_webhook',
			agent_id: agentId,
			completed_at: new Date().toISOString(),
			variables: caller,
		}),
	});
	expect({ status: res.status, body: await res.json() }).toEqual({
		status: 200,
		body: expect.objectContaining({ started: true, items: 1 }),
	});
	await stack.api.waitForExecutions(workflow.id, { count: before + 1 });
	const rows = await contacts();
	expect(rows.filter((row) => row.conversation_id === 'conv_vendor_json')).toEqual([
		expect.objectContaining(caller),
	]);
});

test('"Listen for test event" takes one delivery at the test URL, then the production URL is restored', async () => {
	const before = await executionCount();
	await stack.api.listenForTestEvent(workflow, TRIGGER);
	const testUrl = productionUrl.replace('/webhook/', '/webhook-test/');
	await pollUntil(
		async () => (await stack.admin.accountWebhook(stack.org.id))?.startsWith(`${testUrl}?token=`),
		{
			what: 'the test URL as the account webhook',
		},
	);

	const caller: Caller = {
		name: 'Mary Jackson',
		phone: '+14155550205',
		email: 'mj@example.com',
		intent: 'test listen',
	};
	const id = await deliveredOnce(caller);
	const executions = await stack.api.waitForExecutions(workflow.id, { count: before + 1 });
	const manual = executions[executions.length - 1];
	expect(manual).toMatchObject({ mode: 'manual', status: 'success' });
	// The test run goes to the end, through the CRM node; no published run took the delivery.
	expect((await stack.api.getExecution(manual.id)).outputs[CRM]).toEqual([
		expect.objectContaining({ ...caller, conversation_id: id }),
	]);

	const restored = new URL(productionUrl);
	restored.searchParams.set('token', productionToken(stack.org.apiKey, productionUrl));
	await pollUntil(
		async () => (await stack.admin.accountWebhook(stack.org.id)) === restored.toString(),
		{
			what: 'the production URL restored as the account webhook',
		},
	);
	expect((await contacts()).filter((row) => row.conversation_id === id)).toEqual([]);
});

test('after n8n restarts, the published trigger still receives deliveries', async () => {
	await restartN8n();
	const registered = await stack.admin.accountWebhook(stack.org.id);
	expect(registered?.startsWith(`${productionUrl}?token=`)).toBe(true);

	const before = await executionCount();
	const caller: Caller = {
		name: 'Katherine Johnson',
		phone: '+14155550204',
		email: 'kj@example.com',
		intent: 'book a checkup',
	};
	const id = await deliveredOnce(caller);
	await stack.api.waitForExecutions(workflow.id, { count: before + 1 });
	const rows = await contacts();
	expect(rows.filter((row) => row.conversation_id === id)).toEqual([
		expect.objectContaining(caller),
	]);
}, 240_000);

test("after the restart, a conversation delivered again runs but Pass Once (n8n's database) stops it before the CRM", async () => {
	const initial = await executionCount();
	const first = await deliveredOnce({
		name: 'Dorothy Vaughan',
		phone: '+14155550206',
		email: 'dv@example.com',
		intent: 'first',
	});
	await stack.api.waitForExecutions(workflow.id, { count: initial + 1 });
	await restartN8n();

	// The trigger's in-memory check was lost with the process: only the database can recognise the repeat.
	const before = await executionCount();
	const { conversationId } = await stack.admin.simulateConversation(stack.org.id, {
		agentId,
		conversationId: first,
		variables: {
			name: 'Dorothy Vaughan',
			phone: '+14155550206',
			email: 'dv@example.com',
			intent: 'repeated',
		},
	});
	expect(conversationId).toBe(first);
	await pollUntil(
		async () =>
			(await stack.admin.deliveries(stack.org.id))
				.filter((d) => d.conversationId === first)
				.every((d) => d.status === 'delivered'),
		{
			what: 'the repeated delivery',
		},
	);
	const runs = await stack.api.waitForExecutions(workflow.id, { count: before + 1 });
	const repeat = await stack.api.getExecution(runs[runs.length - 1].id);
	expect(repeat.status).toBe('success');
	expect(repeat.outputs['Pass each conversation once']).toEqual([]);
	expect(repeat.outputs[CRM]).toBeUndefined();
	const rows = (await contacts()).filter((row) => row.conversation_id === first);
	expect(rows).toEqual([expect.objectContaining({ intent: 'first' })]);
}, 240_000);
