/**
 * Receive From = a chatbot's own webhook URL (issue 42): the trigger registers nothing, ownership
 * never sees it, and the chatbot's deliveries are checked against the address a test listen gives.
 * Its token is not the account way's (issue 50, item 4), and the address stays out of the message
 * n8n logs, with n8n's production path whatever N8N_ENDPOINT_WEBHOOK says (item 10).
 */
import type { INodeParameters, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { setTimeout as sleep } from 'timers/promises';

import {
	forgetAllAccounts,
	registeredHolder,
	organizationWithClaim,
} from '../../nodes/VoiceAi/accountOwnership/organizations';
import { TriggerHarness, type TriggerSetup, TriggerWorkflow } from '../../harness/triggerWorkflow';

const ORG = 'org_acme';
const CHATBOT = 'cb_chatbot_way';
const CHATBOT_WAY = { receiveFrom: 'chatbotWebhookUrl', whenOwnerUnknown: 'refuse' };
const harness = new TriggerHarness({ deliveryRetry: { attempts: 1, baseDelayMs: 20 } });

const claimIdOf = (flow: TriggerWorkflow) => `${flow.workflowId}/${flow.node.id}`;
const runsOf = (flow: TriggerWorkflow) =>
	harness.executions.filter((execution) => execution.flowId === flow.workflowId);

async function inserts(): Promise<number> {
	const log = await harness.admin.request<Array<{ method: string; path: string }>>(
		'GET',
		`/__sandbox/requests?org=${ORG}`,
	);
	return log.filter((e) => e.method === 'POST' && e.path === '/webhook/insert-webhook').length;
}

/** How a test listen in this way stops: n8n shows the message, and a NodeApiError's description. */
async function testListenError(flow: TriggerWorkflow): Promise<Error & { description?: string }> {
	const error = await flow.startTestListen().then(
		() => new Error('the test listen did not stop'),
		(thrown: Error) => thrown,
	);
	await flow.endTestListen();
	return error;
}

/** The address the test listen gives, wherever in what n8n shows: what the user pastes into the dashboard. */
async function addressOf(flow: TriggerWorkflow): Promise<string> {
	const error = await testListenError(flow);
	const shown = `${error.message} ${error.description ?? ''}`;
	const address = /https?:\/\/\S+[?&]token=[\w-]+/.exec(shown)?.[0];
	if (address === undefined) throw error;
	return address;
}

/** The answers a conversation's delivery to `target` got, once the sandbox is done with it. */
async function answersTo(conversationId: string, target: 'account' | 'chatbot'): Promise<number[]> {
	for (;;) {
		const mine = (await harness.admin.deliveries(ORG)).find(
			(d) => d.conversationId === conversationId && d.target === target,
		);
		if (mine && mine.status !== 'pending') return mine.responseCodes;
		await sleep(20);
	}
}

async function chatbotConversation(): Promise<string> {
	const { conversationId } = await harness.admin.simulateConversation(ORG, {
		chatbotId: CHATBOT,
		variables: { name: 'Grace' },
	});
	expect((await answersTo(conversationId, 'chatbot')).at(-1)).toBe(200);
	return conversationId;
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
	const output = run.items;
	expect(
		output.map((item) => [
			item.json.name,
			(item.json._voiceAi as { conversationId: string }).conversationId,
		]),
	).toEqual([['Grace', conversationId]]);
	expect(organizationWithClaim(claimIdOf(flow))).toBeUndefined();
	expect(registeredHolder(claimIdOf(holder))?.productionUrl).toBe(holder.productionUrl);

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
	expect(registeredHolder(claimIdOf(holder))?.productionUrl).toBe(holder.productionUrl);
});

describe('issue 50, item 4: the two ways have distinct tokens', () => {
	beforeEach(() => forgetAllAccounts());

	// n8n (2.40.7 and 1.123.81) tears the published version down with its own parameters, then publishes the new one.
	test("a holder switched to the chatbot way gives the account up, and the account's deliveries (its token) get 401 there", async () => {
		const flow = harness.workflow({ name: 'Switched to the chatbot way' });
		await flow.activate();
		const accountUrl = (await harness.admin.accountWebhook(ORG))!;
		expect(accountUrl.startsWith(`${flow.productionUrl}?token=`)).toBe(true);

		await flow.deactivate();
		flow.setParameters(CHATBOT_WAY);
		await flow.activate('update');
		expect(organizationWithClaim(claimIdOf(flow))).toBeUndefined();
		// On Unpublish = Leave As Is: the account still points here, with the account way's token.
		expect(await harness.admin.accountWebhook(ORG)).toBe(accountUrl);

		const { conversationId } = await harness.admin.simulateConversation(ORG, {
			variables: { name: 'Account conversation' },
		});
		expect(await answersTo(conversationId, 'account')).toEqual([401]);
		expect(runsOf(flow)).toHaveLength(0);

		const address = await addressOf(flow);
		const tokenOf = (url: string) => new URL(url).searchParams.get('token');
		expect(tokenOf(address)).not.toBe(tokenOf(accountUrl));
		const byChatbot = await fetch(address, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ conversation_id: 'switched', chatbot_id: CHATBOT, variables: {} }),
		});
		expect(byChatbot.status).toBe(200);
		expect(runsOf(flow)).toHaveLength(1);
	});

	test("a teardown that reads the chatbot way's parameters (On Unpublish hidden there) still gives the account up", async () => {
		const flow = harness.workflow({ name: 'Torn down with the new parameters' });
		await flow.activate();
		flow.setParameters(CHATBOT_WAY);
		await flow.deactivate();
		expect(organizationWithClaim(claimIdOf(flow))).toBeUndefined();
		await flow.activate('update');
		expect(organizationWithClaim(claimIdOf(flow))).toBeUndefined();
	});

	test("after a restart, a delivery through the chatbot's address to a published account-way trigger gets 401 and does not make it the holder", async () => {
		const first = harness.workflow({ name: 'First holder' });
		await first.activate();
		const taker = harness.workflow({ name: 'Taker', parameters: { whenHeld: 'takeOver' } });
		await taker.activate();
		expect(registeredHolder(claimIdOf(taker))).toBeDefined();
		// n8n 2.x: a draft of the first workflow in the chatbot way gives the address of its production
		// URL, while the published version stays in the account way.
		first.setParameters(CHATBOT_WAY);
		const address = await addressOf(first);
		first.setParameters({});
		const chatbot = 'cb_restart';
		await harness.admin.seed(ORG, {
			chatbots: [{ id: chatbot, chatbotName: 'After a restart', webhook_url: address }],
		});

		forgetAllAccounts(); // n8n restarted: nothing runs for the published triggers until a delivery
		const { conversationId } = await harness.admin.simulateConversation(ORG, {
			chatbotId: chatbot,
			variables: { name: 'Ada' },
		});
		expect(await answersTo(conversationId, 'chatbot')).toEqual([401]);
		expect(await answersTo(conversationId, 'account')).toEqual([200]);
		expect(registeredHolder(claimIdOf(first))).toBeUndefined();
		expect(runsOf(first)).toHaveLength(0);
		expect(registeredHolder(claimIdOf(taker))?.productionUrl).toBe(taker.productionUrl);
	});
});

/** n8n started with N8N_ENDPOINT_WEBHOOK=hooks: production URLs read /hooks/…, test URLs /webhook-test/…. */
class HooksEndpointWorkflow extends TriggerWorkflow {
	override get productionUrl(): string {
		return `${this.n8nBaseUrl}/hooks/${this.node.webhookId}/webhook`;
	}

	override additionalData(
		extra: Partial<IWorkflowExecuteAdditionalData> = {},
	): IWorkflowExecuteAdditionalData {
		return { ...super.additionalData(extra), webhookBaseUrl: `${this.n8nBaseUrl}/hooks` };
	}
}

describe("issue 50, item 10: the chatbot way's address", () => {
	const setup = (parameters: INodeParameters): TriggerSetup => ({
		baseUrl: harness.sandbox.baseUrl,
		apiKey: harness.sandbox.orgs[0].apiKey,
		n8nBaseUrl: harness.baseUrl,
		parameters,
	});

	test("is n8n's production URL with a custom webhook endpoint, and its token is not in the message n8n logs", async () => {
		const flow = new HooksEndpointWorkflow(setup(CHATBOT_WAY));
		await flow.activate();
		const error = await testListenError(flow);
		const address = await addressOf(flow);
		expect(address.startsWith(`${flow.productionUrl}?token=`)).toBe(true);
		const token = new URL(address).searchParams.get('token')!;
		expect(token).toMatch(/^[\w-]{43}$/);
		expect(error.message).not.toContain(token);
		expect(error.message).not.toContain('token=');
		expect(error.message).toMatch(/Show Details/);
		expect(error.description).toContain(address);
	});

	test('before this process published the workflow, the test listen says to publish and names no address', async () => {
		const flow = harness.workflow({ parameters: CHATBOT_WAY });
		const error = await testListenError(flow);
		expect(error.message).toMatch(/publish this workflow/);
		expect(`${error.message} ${error.description ?? ''}`).not.toMatch(/token=|\/webhook\//);
		await flow.activate();
		expect(await addressOf(flow)).toMatch(/\/webhook\/[\w-]+\/webhook\?token=[\w-]{43}$/);
		await flow.deactivate();
	});
});
