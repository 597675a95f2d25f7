/**
 * Webhook Set in a process that has seen no Voice AI Trigger for the organization: a run a person
 * started (Execute workflow, or Retry of an execution) sets the webhook; a run nobody watches is refused,
 * and a sub-workflow's refusal says what to do there (issue 40).
 */
import type { WorkflowExecuteMode } from 'n8n-workflow';

import { runNode } from '../../harness/engine';
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const setWebhook = async (mode: WorkflowExecuteMode) =>
	await runNode({
		parameters: {
			resource: 'webhook',
			operation: 'set',
			webhookUrl: 'https://crm.example.com/voice',
			options: { maxAttempts: 1 },
		},
		credentials: fx.credentials(),
		mode,
	});

it.each<WorkflowExecuteMode>(['manual', 'retry'])(
	'a %s run counts as started by hand: the webhook is set',
	async (mode) => {
		const result = await setWebhook(mode);
		expect(result.error).toBeUndefined();
		expect((await fx.requests()).map((request) => request.path)).toEqual([
			'/webhook/insert-webhook',
		]);
	},
);

it('a scheduled run is refused, nothing sent', async () => {
	const result = await setWebhook('trigger');
	expect(result.error?.message).toMatch(/n8n cannot tell whether a published workflow/);
	expect(await fx.requests()).toEqual([]);
});

it("a sub-workflow's refusal says what to do there", async () => {
	const result = await setWebhook('integrated');
	expect(result.error?.message).toMatch(/n8n cannot tell whether a published workflow/);
	expect(result.error?.description).toMatch(/sub-workflow/);
	expect(result.error?.description).toMatch(/Take It Over/);
	expect(result.error?.description).toMatch(/parent workflow/);
	expect(await fx.requests()).toEqual([]);
});
