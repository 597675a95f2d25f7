/**
 * Receive From = a chatbot's own webhook URL (issue 42), in a real n8n of every line: while another
 * published workflow holds the account's webhook, a second one receives one chatbot's conversations at
 * the address its test listen gives, without registering anything or taking the account. Its token is
 * not the account way's (issue 50, item 4), and the address is shown without n8n logging it (item 10).
 */
import { randomUUID } from 'node:crypto';

import { AccountWebhook, postDelivery, TRIGGER } from '../../harness/accountWebhook';
import { N8nApiError, n8nVersion, pollUntil, type SavedWorkflow } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

/** A fresh n8n cannot tell who holds the account: the account-way holder says Go Ahead. */
const GO_AHEAD = { whenOwnerUnknown: 'listen' };
const CHATBOT_WAY = { receiveFrom: 'chatbotWebhookUrl' };
const CHATBOT = 'cb_own_webhook';

const stack = stackForFile();
let rig: AccountWebhook;
const made: SavedWorkflow[] = [];

async function inserts(): Promise<number> {
	const log = await stack.admin.request<Array<{ method: string; path: string }>>(
		'GET',
		`/__sandbox/requests?org=${rig.org}`,
	);
	return log.filter((e) => e.method === 'POST' && e.path === '/webhook/insert-webhook').length;
}

/** What n8n answers "Listen for test event" (`body`: n8n 1.x runs the workflow the editor sends). */
async function testListenAnswer(
	workflow: SavedWorkflow,
	body?: Record<string, unknown>,
): Promise<{ message: string; description?: string }> {
	const listening = body
		? stack.api.request('POST', `/rest/workflows/${workflow.id}/run`, body)
		: stack.api.listenForTestEvent(workflow, TRIGGER);
	const error = await listening.then(
		() => new Error('the test listen did not stop'),
		(thrown: Error) => thrown,
	);
	if (!(error instanceof N8nApiError)) throw error;
	return JSON.parse(error.body) as { message: string; description?: string };
}

/** What the user copies: Show Details of the error a test listen in this way stops with. */
async function addressFromTestListen(
	workflow: SavedWorkflow,
	body?: Record<string, unknown>,
): Promise<string> {
	const answer = await testListenAnswer(workflow, body);
	const address = /^https?:\/\/\S+[?&]token=[\w-]+/.exec(answer.description ?? '')?.[0];
	if (address === undefined) throw new Error(`no address in ${JSON.stringify(answer)}`);
	expect(answer.message).not.toContain(new URL(address).searchParams.get('token'));
	return address;
}

/**
 * The address once the trigger's publish step has run: n8n 2.x reports a workflow published before
 * it runs its triggers' steps, and until then the test listen says to publish.
 */
async function addressOncePublished(workflow: SavedWorkflow): Promise<string> {
	await pollUntil(async () => (await testListenAnswer(workflow)).description !== undefined, {
		what: `the publish step of "${workflow.name}"`,
	});
	return await addressFromTestListen(workflow);
}

const withParameters = (workflow: SavedWorkflow, parameters: Record<string, unknown>) =>
	workflow.nodes.map((node) =>
		node.name === TRIGGER ? { ...node, parameters: { ...node.parameters, ...parameters } } : node,
	);

/** Saves the trigger with `parameters` (n8n 2.x: a draft; 1.x: the workflow, published again if it was). */
async function save(workflow: SavedWorkflow, parameters: Record<string, unknown>) {
	const saved = await stack.api.getWorkflow(workflow.id);
	await stack.api.request('PATCH', `/rest/workflows/${workflow.id}`, {
		nodes: withParameters(saved, parameters),
		connections: {},
		versionId: saved.versionId,
	});
}

/**
 * The address a test listen of the workflow in the chatbot way gives, while its published version
 * stays in the account way: 2.x listens with the saved draft, 1.x with what the editor sends.
 */
async function chatbotAddressOfDraft(workflow: SavedWorkflow): Promise<string> {
	const saved = await stack.api.getWorkflow(workflow.id);
	if (n8nVersion().startsWith('1.')) {
		const workflowData = { ...saved, nodes: withParameters(saved, CHATBOT_WAY) };
		return await addressFromTestListen(workflow, {
			workflowData,
			triggerToStartFrom: { name: TRIGGER },
		});
	}
	await save(workflow, CHATBOT_WAY);
	try {
		return await addressFromTestListen(workflow);
	} finally {
		await save(workflow, { receiveFrom: 'accountWebhook' });
	}
}

/** A conversation of `chatbot`: the answers its chatbot delivery and its account delivery got. */
async function chatbotConversation(chatbot: string) {
	const { conversationId } = await stack.admin.simulateConversation(rig.org, {
		chatbotId: chatbot,
		variables: { name: `caller ${randomUUID().slice(0, 6)}` },
	});
	const answers = async (target: 'account' | 'chatbot') =>
		(
			await pollUntil(
				async () => {
					const all = await stack.admin.deliveries(rig.org);
					const mine = all.find((d) => d.conversationId === conversationId && d.target === target);
					return mine && mine.status !== 'pending' ? mine : undefined;
				},
				{ timeoutMs: 60_000, what: `the ${target} delivery of ${conversationId}` },
			)
		).responseCodes;
	return { conversationId, chatbot: await answers('chatbot'), account: await answers('account') };
}

beforeAll(async () => {
	rig = new AccountWebhook(stack);
}, 300_000);

/** Unpublishes what the tests before published: each test starts with no workflow holding the account. */
async function unpublishAll(): Promise<void> {
	for (const workflow of made) await rig.unpublish(workflow).catch(() => undefined);
}

afterAll(unpublishAll);

test("42: a chatbot's webhook_url reaches a workflow that registered nothing, while another workflow keeps the account", async () => {
	const holder = await rig.trigger('Chatbot way: account holder', GO_AHEAD);
	made.push(holder);
	await stack.api.activateWorkflow(holder);
	await rig.pointsAt(rig.productionUrl(holder), 'the account on the holder');
	const accountWebhook = await stack.admin.accountWebhook(rig.org);
	const insertsBefore = await inserts();

	const own = await rig.trigger('Chatbot way: own webhook', CHATBOT_WAY);
	made.push(own);
	// n8n tells a test listen only its test URL: the address is known once the workflow is published.
	const unpublished = await testListenAnswer(own);
	expect(unpublished.message).toMatch(/publish this workflow/);
	expect(JSON.stringify(unpublished)).not.toContain('token=');
	await stack.api.activateWorkflow(own);
	const address = await addressOncePublished(own);
	expect(address.startsWith(`${rig.productionUrl(own)}?token=`)).toBe(true);
	await stack.admin.seed(rig.org, {
		chatbots: [{ id: CHATBOT, chatbotName: 'Own webhook', webhook_url: address }],
	});

	const { conversationId } = await stack.admin.simulateConversation(rig.org, {
		chatbotId: CHATBOT,
		variables: { name: 'Grace Hopper' },
	});
	const delivery = await pollUntil(
		async () => {
			const all = await stack.admin.deliveries(rig.org);
			const mine = all.find((d) => d.conversationId === conversationId && d.target === 'chatbot');
			return mine && mine.status !== 'pending' ? mine : undefined;
		},
		{ timeoutMs: 60_000, what: `the chatbot delivery of ${conversationId}` },
	);
	expect(delivery.responseCodes.at(-1)).toBe(200);
	const [run] = await stack.api.waitForExecutions(own.id);
	const output = (await stack.api.getExecution(run.id)).outputs[TRIGGER];
	expect(
		output.map((item) => [item.name, (item._voiceAi as Record<string, unknown>).conversationId]),
	).toEqual([['Grace Hopper', conversationId]]);

	const forged = new URL(address);
	forged.searchParams.set('token', 'x'.repeat(43));
	const refused = await postDelivery(forged, {
		conversation_id: 'forged',
		chatbot_id: CHATBOT,
		variables: {},
	});
	expect(refused.status).toBe(401);

	expect(await stack.admin.accountWebhook(rig.org)).toBe(accountWebhook);
	await rig.nextDeliveryRuns(holder, [own]);
	await rig.unpublish(own);
	expect(await stack.admin.accountWebhook(rig.org)).toBe(accountWebhook);
	expect(await inserts()).toBe(insertsBefore);
	expect(await stack.api.listExecutions(own.id)).toHaveLength(1);
	await rig.nextDeliveryRuns(holder, [own]);
}, 240_000);

test("50 item 4: a holder switched to the chatbot way answers the account's deliveries 401, and the account goes to the next publisher", async () => {
	await unpublishAll();
	const switched = await rig.trigger('Item 4: switched to the chatbot way', GO_AHEAD);
	made.push(switched);
	await stack.api.activateWorkflow(switched);
	await rig.pointsAt(rig.productionUrl(switched), 'the account on the workflow about to switch');
	await rig.nextDeliveryRuns(switched);

	await save(switched, CHATBOT_WAY);
	if (!n8nVersion().startsWith('1.')) await stack.api.activateWorkflow(switched);
	// Until n8n has put the new version in place, the published one may still take a delivery.
	await pollUntil(async () => (await rig.delivers()).at(-1) === 401 || undefined, {
		what: "the account's delivery refused by the chatbot way",
	});
	const runs = await rig.runs(switched);
	expect(new Set(await rig.delivers())).toEqual(new Set([401]));
	expect(await rig.runs(switched)).toBe(runs);

	// It gave the account up: Fail to Publish publishes, and the account's deliveries run there.
	const next = await rig.trigger('Item 4: next publisher');
	made.push(next);
	await stack.api.activateWorkflow(next);
	await rig.pointsAt(rig.productionUrl(next), 'the account on the next publisher');
	await rig.nextDeliveryRuns(next, [switched]);
	await rig.unpublish(switched, next);
}, 300_000);

test("50 item 4: after a restart, a delivery through a chatbot's address to a published account-way workflow gets 401, and that workflow's unpublish leaves the account on its holder", async () => {
	await unpublishAll();
	const replacement = {
		onDeactivation: 'replacementUrl',
		replacementUrl: 'https://replacement.example/voice',
	};
	const first = await rig.trigger('Item 4: first holder', { ...GO_AHEAD, ...replacement });
	made.push(first);
	await stack.api.activateWorkflow(first);
	await rig.pointsAt(rig.productionUrl(first), 'the account on the first holder');
	const taker = await rig.trigger('Item 4: taker', { ...GO_AHEAD, whenHeld: 'takeOver' });
	made.push(taker);
	await stack.api.activateWorkflow(taker);
	await rig.pointsAt(rig.productionUrl(taker), 'the account on the taker');

	const address = await chatbotAddressOfDraft(first);
	expect(address.startsWith(`${rig.productionUrl(first)}?token=`)).toBe(true);
	const chatbot = 'cb_item_4_restart';
	await stack.admin.seed(rig.org, {
		chatbots: [{ id: chatbot, chatbotName: 'Item 4 after a restart', webhook_url: address }],
	});

	await rig.restartN8n();
	const firstRuns = await rig.runs(first, undefined);
	const answers = await chatbotConversation(chatbot);
	// The sandbox tries a refused delivery again: every try is refused.
	expect(new Set(answers.chatbot)).toEqual(new Set([401]));
	expect(answers.account.at(-1)).toBe(200);
	expect(await rig.runs(first, undefined)).toBe(firstRuns);

	// Had the delivery made it the holder, its unpublish would point the account at its replacement URL.
	await rig.unpublish(first);
	await rig.nextDeliveryRuns(taker, [first]);
	expect(await rig.accountUrl()).toBe(rig.productionUrl(taker));
	await rig.unpublish(taker);
}, 300_000);
