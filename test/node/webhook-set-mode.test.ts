/**
 * Webhook Set in a process that has seen no Voice AI Trigger for the organization (n8n 2.x after a
 * restart, a queue-mode worker): whoever started the run, nobody can tell whether a published workflow
 * would be cut off, so it is refused with advice that works in that run; Take It Over sets it
 * (issues 38.2 and 40.6).
 */
import type { WorkflowExecuteMode } from 'n8n-workflow';

import { runNode } from '../../harness/engine';
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const setWebhook = async (mode: WorkflowExecuteMode, whenTriggerHolds = 'refuse') =>
	await runNode({
		parameters: {
			resource: 'webhook',
			operation: 'set',
			webhookUrl: 'https://crm.example.com/voice',
			whenTriggerHolds,
			options: { maxAttempts: 1 },
		},
		credentials: fx.credentials(),
		mode,
	});

const modes: WorkflowExecuteMode[] = ['manual', 'retry', 'trigger', 'integrated'];

it.each(modes)('a %s run is refused, nothing sent, and the advice works there', async (mode) => {
	const result = await setWebhook(mode);
	expect(result.error?.message).toMatch(/n8n cannot tell whether a published workflow/);
	expect(result.error?.message).toMatch(/"Take It Over"/);
	expect(result.error?.description).not.toMatch(/by hand/);
	expect(await fx.requests()).toEqual([]);
});

it.each(modes)('a %s run with Take It Over sets the webhook', async (mode) => {
	const result = await setWebhook(mode, 'takeOver');
	expect(result.error).toBeUndefined();
	expect((await fx.requests()).map((request) => request.path)).toEqual(['/webhook/insert-webhook']);
});

describe('an "If a Published Trigger Holds It" value that is not one of its options (issue 51, item 7)', () => {
	it.each(['takeover', 'take over', '', 'Refuse'])(
		'%j is refused naming the field, the item and the valid values; nothing is sent',
		async (value) => {
			const result = await setWebhook('manual', value);
			expect(result.error?.message).toMatch(/'If a Published Trigger Holds It' in item 0/);
			expect(result.error?.message).toMatch(/refuse/);
			expect(result.error?.message).toMatch(/takeOver/);
			expect(result.error?.message).not.toMatch(/n8n cannot tell/);
			expect(await fx.requests()).toEqual([]);
		},
	);

	it('an expression yielding takeOver takes it over', async () => {
		const result = await setWebhook('manual', '={{ "take" + "Over" }}');
		expect(result.error).toBeUndefined();
		expect((await fx.requests()).map((request) => request.path)).toEqual([
			'/webhook/insert-webhook',
		]);
	});
});
