/**
 * Receive From = a chatbot's own webhook URL (issue 42), in a real n8n of every line: while another
 * published workflow holds the account's webhook, a second one receives one chatbot's conversations at
 * the address its test listen gives, without registering anything or taking the account.
 */
import { AccountWebhook, TRIGGER } from '../../harness/accountWebhook';
import { pollUntil, type SavedWorkflow } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

/** A fresh n8n cannot tell who holds the account: the account-way holder says Go Ahead. */
const GO_AHEAD = { whenOwnerUnknown: 'listen' };
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

/** What the user copies: the error a test listen in this way stops with names the address. */
async function addressFromTestListen(workflow: SavedWorkflow): Promise<string> {
	const error = await stack.api.listenForTestEvent(workflow, TRIGGER).then(
		() => new Error('the test listen did not stop'),
		(thrown: Error) => thrown,
	);
	const text = error.message.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
	const address = /Voice AI dashboard to (https?:\/\/[^\s"\\]+)/.exec(text)?.[1];
	if (address === undefined) throw error;
	return address;
}

beforeAll(async () => {
	rig = new AccountWebhook(stack);
}, 300_000);

afterAll(async () => {
	for (const workflow of made) await rig.unpublish(workflow).catch(() => undefined);
});

test("42: a chatbot's webhook_url reaches a workflow that registered nothing, while another workflow keeps the account", async () => {
	const holder = await rig.trigger('Chatbot way: account holder', GO_AHEAD);
	made.push(holder);
	await stack.api.activateWorkflow(holder);
	await rig.pointsAt(rig.productionUrl(holder), 'the account on the holder');
	const accountWebhook = await stack.admin.accountWebhook(rig.org);
	const insertsBefore = await inserts();

	const own = await rig.trigger('Chatbot way: own webhook', { receiveFrom: 'chatbotWebhookUrl' });
	made.push(own);
	const address = await addressFromTestListen(own);
	expect(address.startsWith(`${rig.productionUrl(own)}?token=`)).toBe(true);
	await stack.api.activateWorkflow(own);
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
	const refused = await fetch(forged, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ conversation_id: 'forged', chatbot_id: CHATBOT, variables: {} }),
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
