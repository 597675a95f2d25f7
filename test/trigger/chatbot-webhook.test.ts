/**
 * Receive From = a chatbot's own webhook URL (issue 42): the trigger registers nothing, ownership
 * never sees it, and the chatbot's deliveries are checked against the address a test listen gives.
 */
import { setTimeout as sleep } from 'timers/promises';

import { holds, withClaim } from '../../nodes/VoiceAi/accountOwnership/organizations';
import { startTriggerHarness, type TriggerWorkflow } from '../../harness/triggerWorkflow';

const ORG = 'org_acme';
const CHATBOT = 'cb_chatbot_way';
const CHATBOT_WAY = { receiveFrom: 'chatbotWebhookUrl', whenOwnerUnknown: 'refuse' };
const harness = startTriggerHarness({
	sandbox: { deliveryRetry: { attempts: 1, baseDelayMs: 20 } },
});

const claimIdOf = (flow: TriggerWorkflow) => `${flow.workflowId}/${flow.node.id}`;
const runsOf = (flow: TriggerWorkflow) =>
	harness.receiver.executions.filter((execution) => execution.flowId === flow.workflowId);

async function inserts(): Promise<number> {
	const log = await harness.admin.request<Array<{ method: string; path: string }>>(
		'GET',
		`/__sandbox/requests?org=${ORG}`,
	);
	return log.filter((e) => e.method === 'POST' && e.path === '/webhook/insert-webhook').length;
}

/** The address a test listen in this way stops with: what the user pastes into the dashboard. */
async function addressOf(flow: TriggerWorkflow): Promise<string> {
	const error = await flow.startTestListen().then(
		() => new Error('the test listen did not stop'),
		(thrown: Error) => thrown,
	);
	const address = /set the chatbot's Webhook URL in the Voice AI dashboard to (\S+)$/.exec(
		error.message,
	)?.[1];
	if (address === undefined) throw error;
	await flow.endTestListen();
	return address;
}

async function chatbotConversation(): Promise<string> {
	const { conversationId } = await harness.admin.simulateConversation(ORG, {
		chatbotId: CHATBOT,
		variables: { name: 'Grace' },
	});
	for (;;) {
		const mine = (await harness.admin.deliveries(ORG)).find(
			(d) => d.conversationId === conversationId && d.target === 'chatbot',
		);
		if (mine && mine.status !== 'pending') {
			expect(mine.responseCodes.at(-1)).toBe(200);
			return conversationId;
		}
		await sleep(20);
	}
}

test("a chatbot-way trigger registers nothing, is never the account's holder, and receives its chatbot's deliveries", async () => {
	const holder = harness.workflow({ name: 'Account holder' });
	await holder.activate();
	const accountUrl = await harness.admin.accountWebhook(ORG);
	const insertsBefore = await inserts();

	const flow = harness.workflow({ name: 'Chatbot way', parameters: CHATBOT_WAY });
	await flow.activate();
	const address = await addressOf(flow);
	expect(address.startsWith(`${flow.productionUrl}?token=`)).toBe(true);
	await harness.admin.seed(ORG, {
		chatbots: [{ id: CHATBOT, chatbotName: 'Chatbot way', webhook_url: address }],
	});

	const conversationId = await chatbotConversation();
	const [run] = runsOf(flow);
	expect(runsOf(flow)).toHaveLength(1);
	const output = run.run.data.resultData.runData['Voice AI Trigger'][0].data!.main[0]!;
	expect(
		output.map((item) => [
			item.json.name,
			(item.json._voiceAi as { conversationId: string }).conversationId,
		]),
	).toEqual([['Grace', conversationId]]);
	expect(withClaim(claimIdOf(flow))).toBeUndefined();
	expect(holds(claimIdOf(holder))?.productionUrl).toBe(holder.productionUrl);

	const forged = new URL(address);
	forged.searchParams.set('token', 'x'.repeat(43));
	const refused = await fetch(forged, {
		method: 'POST',
		body: '{}',
		headers: { 'content-type': 'application/json' },
	});
	expect(refused.status).toBe(401);
	const missing = new URL(address);
	missing.searchParams.delete('token');
	expect((await fetch(missing, { method: 'POST', body: '{}' })).status).toBe(401);
	expect(runsOf(flow)).toHaveLength(1);

	await flow.deactivate();
	expect(await inserts()).toBe(insertsBefore);
	expect(await harness.admin.accountWebhook(ORG)).toBe(accountUrl);
	expect(holds(claimIdOf(holder))?.productionUrl).toBe(holder.productionUrl);
});
