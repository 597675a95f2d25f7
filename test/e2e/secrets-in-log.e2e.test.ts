/**
 * A webhook token is a secret like the API key (issue 50): no path that makes n8n write to its log may
 * put one there. This file runs the noisy paths in a real n8n (test listens refused in both ways, the
 * chatbot way's address, publishes refused, deliveries refused, a restart) and then reads n8n's log for
 * every token the sandbox was given and every `token=` value. The harness checks every e2e file's n8n
 * log the same way (harness/n8n/process.ts); this file makes sure the noisy paths ran.
 */
import { readFileSync } from 'node:fs';

import { AccountWebhook, postDelivery, TRIGGER } from '../../harness/accountWebhook';
import { pollUntil, type SavedWorkflow, webhookTokensIn } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const stack = stackForFile();
let rig: AccountWebhook;
/** Every token this file saw leave n8n (registered, or in an answer n8n gave the editor). */
const tokens = new Set<string>();

const tokenOf = (url: string | null | undefined) => {
	const token = url ? new URL(url).searchParams.get('token') : null;
	if (token) tokens.add(token);
};

/** What n8n answers "Listen for test event", whatever it is: the path is what matters here. */
async function listen(workflow: SavedWorkflow): Promise<string> {
	const answer = await stack.api.listenForTestEvent(workflow, TRIGGER).then(
		() => 'listening',
		(error: Error) => error.message,
	);
	for (const [url] of answer.matchAll(/https?:\/\/[^\s"\\]+/g)) tokenOf(url);
	return answer;
}

async function post(url: string, token?: string): Promise<number> {
	const target = new URL(url);
	if (token !== undefined) target.searchParams.set('token', token);
	const res = await postDelivery(target, {
		conversation_id: `c_${Date.now()}`,
		variables: { name: 'Log' },
	});
	return res.status;
}

beforeAll(() => {
	rig = new AccountWebhook(stack);
});

test('the noisy paths run: refused test listens, the chatbot way, refused publishes and deliveries, a restart', async () => {
	// A fresh n8n: the account-way test listen is refused (nobody can tell who holds the account).
	const refusing = await rig.trigger('Log: refused test listen', { whenOwnerUnknown: 'refuse' });
	expect(await listen(refusing)).toMatch(/cannot tell/);

	const holder = await rig.trigger('Log: holder', { whenOwnerUnknown: 'listen' });
	await stack.api.activateWorkflow(holder);
	await rig.pointsAt(rig.productionUrl(holder), 'the account on the holder');
	tokenOf(await stack.admin.accountWebhook(rig.org));

	// Publishing while another holds it is refused; so is a test listen of a draft that would cut it off.
	const second = await rig.trigger('Log: refused publish');
	await rig.publishError(second, /held by the published workflow/);
	await stack.api.deactivateWorkflow(second).catch(() => undefined);

	// The chatbot way: refused before publishing, the address after (item 10: it was in the message).
	const chatbot = await rig.trigger('Log: chatbot way', { receiveFrom: 'chatbotWebhookUrl' });
	await listen(chatbot);
	await stack.api.activateWorkflow(chatbot);
	// n8n 2.x reports a workflow published before its triggers' publish step has run: until then the
	// test listen says to publish.
	const address = `${rig.productionUrl(chatbot)}?token=`;
	await pollUntil(async () => (await listen(chatbot)).includes(address) || undefined, {
		what: "the chatbot way's test listen giving its address",
	});
	await listen(chatbot);

	// Deliveries refused: no token, a wrong one, the other way's token, a test URL with a production token.
	const chatbotUrl = rig.productionUrl(chatbot);
	const holderToken = new URL((await stack.admin.accountWebhook(rig.org))!).searchParams.get(
		'token',
	)!;
	// n8n serves a production URL about a second after publishing.
	await pollUntil(async () => (await post(chatbotUrl)) !== 404 || undefined, {
		what: "the chatbot way's production URL served",
	});
	expect(await post(chatbotUrl)).toBe(401);
	expect(await post(chatbotUrl, 'x'.repeat(43))).toBe(401);
	expect(await post(chatbotUrl, holderToken)).toBe(401);
	expect(
		await post(rig.productionUrl(holder).replace('/webhook/', '/webhook-test/'), holderToken),
	).toBe(404);

	// A restart, then the account's delivery and the chatbot way's test listen again.
	await rig.restartN8n();
	expect((await rig.delivers()).at(-1)).toBe(200);
	await listen(chatbot);
	await rig.unpublish(chatbot, holder);
	expect(tokens.size).toBeGreaterThan(0);
}, 300_000);

test("n8n's log holds none of those tokens and no token= value", () => {
	const log = readFileSync(stack.n8n.logFile, 'utf8');
	expect(log.length).toBeGreaterThan(0);
	expect(webhookTokensIn(log, tokens)).toEqual([]);
	expect(stack.n8n.tokensInLog()).toEqual([]);
});
