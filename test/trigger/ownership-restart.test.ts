/**
 * A Go-Ahead test listen after an n8n 2.x restart (issue 49 item 3): 2.x does not run a published
 * trigger's publish step at start, so the process cannot tell who holds the account. Several workflows
 * of one process through n8n-core's HookContext, the sandbox delivering to whatever the account holds
 * and a receiver in n8n's role (404 for an unpublished workflow's production URL).
 */
import { forgetAllAccounts } from '../../nodes/VoiceAi/accountOwnership/organizations';
import { TriggerHarness, type TriggerWorkflow } from '../../harness/triggerWorkflow';

const ORG = 'org_acme';
const GO_AHEAD = { whenOwnerUnknown: 'listen' };
const harness = new TriggerHarness();

beforeEach(() => forgetAllAccounts());

async function pointsAt(): Promise<string> {
	const url = new URL((await harness.admin.accountWebhook(ORG))!);
	url.searchParams.delete('token');
	return url.toString();
}

const runsOf = (flow: TriggerWorkflow, mode: 'production' | 'test') =>
	harness.executions.filter((e) => e.flowId === flow.workflowId && e.mode === mode).length;

/** A conversation delivered where the account points, token included, as the service delivers it. */
async function deliver(): Promise<number> {
	const body = {
		event: 'conversation.completed',
		conversation_id: `conv_${Math.random().toString(36).slice(2)}`,
		source: 'account_webhook',
		agent_id: 'agent_1',
		chatbot_id: null,
		completed_at: '2025-01-02T03:04:05.000Z',
		variables: { name: 'test caller' },
	};
	const url = (await harness.admin.accountWebhook(ORG))!;
	const headers = { 'content-type': 'application/json' };
	return (await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })).status;
}

/** Where the account points once n8n has ended the test listen (after answering the delivery). */
async function settled(expected: string): Promise<string> {
	for (let i = 0; i < 50 && (await pointsAt()) !== expected; i++)
		await new Promise((resolve) => setTimeout(resolve, 20));
	return await pointsAt();
}

/** n8n 2.x restarts: published workflows stay served, nothing of the trigger runs. */
const restart2x = () => forgetAllAccounts();

test('49.3: A published with Go Ahead; 2.x restart; a test listen in A; when it ends A receives again', async () => {
	const a = harness.workflow({ name: 'Sync A', parameters: GO_AHEAD });
	await a.activate();
	expect(await pointsAt()).toBe(a.productionUrl);

	restart2x();
	await a.startTestListen();
	expect(await pointsAt()).toBe(a.testUrl);
	expect(await deliver()).toBe(200); // the test run; n8n then ends the test listen
	expect(runsOf(a, 'test')).toBe(1);
	expect(await settled(a.productionUrl)).toBe(a.productionUrl);
	expect(await deliver()).toBe(200);
	expect(runsOf(a, 'production')).toBe(1);
});

test('49.3: after that test the process still cannot tell: a new workflow with Fail to Publish is refused', async () => {
	const a = harness.workflow({ name: 'Sync A', parameters: GO_AHEAD });
	await a.activate();
	restart2x();
	await a.startTestListen();
	await a.endTestListen();
	const c = harness.workflow({ name: 'Sync C', parameters: { whenOwnerUnknown: 'refuse' } });
	await expect(c.activate()).rejects.toThrow(/cannot tell whether another published workflow/);
	expect(await pointsAt()).toBe(a.productionUrl);
});

test('49.3: a Go-Ahead test in an unpublished draft after a restart registers no production URL when it ends', async () => {
	const y = harness.workflow({ name: 'Draft', parameters: GO_AHEAD });
	await y.startTestListen();
	await y.endTestListen();
	expect(await pointsAt()).toBe(y.testUrl);
});

test('49.3: a publish during the Go-Ahead test (Take Over) holds when the test ends; its unpublish gives nothing back to A unseen', async () => {
	const a = harness.workflow({ name: 'Sync A', parameters: GO_AHEAD });
	await a.activate();
	restart2x();
	await a.startTestListen();
	const c = harness.workflow({ name: 'Sync C', parameters: { whenHeld: 'takeOver' } });
	await c.activate();
	expect(await pointsAt()).toBe(a.testUrl);
	await a.endTestListen();
	expect(await pointsAt()).toBe(c.productionUrl);
});
