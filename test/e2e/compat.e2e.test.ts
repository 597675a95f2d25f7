/**
 * The core a user needs, on whichever n8n VOICEAI_N8N_DIR names: `npm test` runs this file on every
 * n8n line of scripts/n8n-lines.json (with workflows.e2e.test.ts, which runs every action operation
 * once, and the other files of every line). Here: the package installed as a
 * community package, the credential test of n8n's credential dialog, and the trigger published, fed
 * by a delivery and listening for a test event.
 */
import {
	NODE_TYPES,
	loadExample,
	n8nVersion,
	pollUntil,
	type SavedWorkflow,
	type WorkflowJson,
} from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const TRIGGER = 'Conversation completed';
const version = n8nVersion();

const stack = stackForFile();

/** The example's trigger node (its parameters as shipped: Go Ahead) feeding a No Op node. */
function triggerWorkflow(): WorkflowJson {
	const trigger = loadExample('crm-sync').nodes.find((node) => node.name === TRIGGER);
	if (!trigger) throw new Error(`examples/crm-sync.json has no "${TRIGGER}" node`);
	return {
		name: 'compat trigger',
		nodes: [
			trigger,
			{
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [260, 0],
				parameters: {},
			},
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

describe(`n8n ${version}`, () => {
	test('loads both nodes, the action node as an AI tool, and the credential from the installed community package', async () => {
		expect(await stack.api.nodeTypeNames()).toEqual(
			expect.arrayContaining([NODE_TYPES.action, `${NODE_TYPES.action}Tool`, NODE_TYPES.trigger]),
		);
		const credentialTypes = await stack.api.request<Array<{ name: string }>>(
			'GET',
			'/types/credentials.json',
		);
		expect(credentialTypes.map((type) => type.name)).toContain('voiceAiApi');
	});

	test("the credential dialog's test accepts the right key and names the problem with a wrong one", async () => {
		const test = (apiKey: string) =>
			stack.api.request<{ status: string; message: string }>('POST', '/rest/credentials/test', {
				credentials: {
					id: stack.credential.id,
					name: stack.credential.name,
					type: 'voiceAiApi',
					data: { baseUrl: stack.sandbox.baseUrl, apiKey, authHeader: 'bearer' },
				},
			});
		expect(await test(stack.org.apiKey)).toMatchObject({ status: 'OK' });
		const wrong = await test('ct_not_a_key_of_this_account');
		// The package's message on every line (n8n 1.x would show its own "Authorization failed" text).
		expect(wrong).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The API key was refused: .*revoked/),
		});
	});

	describe('the trigger', () => {
		let workflow: SavedWorkflow;
		let productionUrl: string;

		test('publishing registers the production URL as the account webhook', async () => {
			workflow = await stack.api.importWorkflow(triggerWorkflow(), {
				voiceAiApi: stack.credential,
			});
			productionUrl = stack.api.productionWebhookUrl(stack.n8n.webhookBase, workflow, TRIGGER);
			await stack.api.activateWorkflow(workflow);
			const registered = await pollUntil(() => stack.admin.accountWebhook(stack.org.id), {
				what: 'the account webhook',
			});
			expect(registered?.startsWith(`${productionUrl}?token=`)).toBe(true);
		});

		test('a completed conversation is delivered and runs the workflow once with its variables', async () => {
			const agentId = (await stack.admin.state<{ agents: Array<{ id: string }> }>(stack.org.id))
				.agents[0].id;
			const variables = { name: 'Compat Caller', intent: `n8n ${version}` };
			const { conversationId } = await stack.admin.simulateConversation(stack.org.id, {
				agentId,
				variables,
			});
			const delivery = await pollUntil(
				async () => {
					const mine = (await stack.admin.deliveries(stack.org.id)).find(
						(d) => d.conversationId === conversationId,
					);
					return mine && mine.status !== 'pending' ? mine : undefined;
				},
				{ timeoutMs: 30_000, what: `the delivery of ${conversationId}` },
			);
			expect({
				status: delivery.status,
				codes: delivery.responseCodes,
				tail: delivery.status === 'delivered' ? '' : stack.n8n.tail(),
			}).toEqual({
				status: 'delivered',
				codes: [200],
				tail: '',
			});

			const [execution] = await stack.api.waitForExecutions(workflow.id, { count: 1 });
			expect(execution).toMatchObject({ mode: 'webhook', status: 'success' });
			const detail = await stack.api.getExecution(execution.id);
			expect(detail.outputs.Received).toEqual([expect.objectContaining(variables)]);
		});

		test('"Listen for test event" takes the next delivery as a manual run, then the account goes back to the published workflow', async () => {
			const published = await stack.admin.accountWebhook(stack.org.id);
			const testUrl = productionUrl.replace('/webhook/', '/webhook-test/');
			await stack.api.listenForTestEvent(workflow, TRIGGER);
			await pollUntil(
				async () =>
					(await stack.admin.accountWebhook(stack.org.id))?.startsWith(`${testUrl}?token=`),
				{ what: 'the test URL as the account webhook' },
			);
			const agentId = (await stack.admin.state<{ agents: Array<{ id: string }> }>(stack.org.id))
				.agents[0].id;
			const variables = { name: 'Test Listener', intent: `listen on n8n ${version}` };
			await stack.admin.simulateConversation(stack.org.id, { agentId, variables });
			const runs = await stack.api.waitForExecutions(workflow.id, { count: 2 });
			const manual = runs.find((run) => run.mode === 'manual');
			expect(manual).toMatchObject({ status: 'success' });
			const detail = await stack.api.getExecution(String(manual?.id));
			expect(detail.outputs.Received).toEqual([expect.objectContaining(variables)]);
			await pollUntil(async () => (await stack.admin.accountWebhook(stack.org.id)) === published, {
				what: 'the published URL back as the account webhook',
			});
		});
	});
});
