/**
 * Voice AI > Conversation > Pass Once in n8n-core's engine. The engine harness runs no n8n database,
 * so n8n's processed-data store is absent there: these tests cover what happens before and without it
 * (input checks, the message when the store is missing, no request to Voice AI). Across processes, on
 * n8n's own store: pass-once-processes.test.ts.
 */
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const passOnce = { resource: 'conversation', operation: 'passOnce' };

it('reads the conversation id of either trigger output by default, and names the item whose id is missing', async () => {
	const result = await fx.run(passOnce, {
		items: [
			{ json: { _voiceAi: { conversationId: 'conv_1' } } },
			{ json: { conversation_id: 'conv_2' } },
			{ json: { event: 'conversation.completed', data: { conversation_id: 'conv_3' } } },
			{ json: { name: 'no id' } },
		],
	});
	expect(result.error?.message).toMatch(
		/Invalid 'Conversation ID' in item 3: expected a non-empty text, got nothing/,
	);
	expect(await fx.requests()).toEqual([]);
});

it('refuses a history size outside 1 to 1,000,000', async () => {
	const result = await fx.run(
		{ ...passOnce, historySize: 0 },
		{ items: [{ json: { conversation_id: 'conv_1' } }] },
	);
	expect(result.error?.message).toMatch(
		/Invalid 'History Size' in item 0: 0 is outside 1 to 1000000/,
	);
});

it("without n8n's processed-data store, says so and passes nothing on; no request reaches Voice AI", async () => {
	const result = await fx.run(passOnce, { items: [{ json: { conversation_id: 'conv_1' } }] });
	expect(result.items).toEqual([]);
	expect(result.error?.message).toMatch(
		/Could not read or record conversation "conv_1" in n8n's processed-data store/,
	);
	expect(result.error?.description).toMatch(/not passed on/);
	expect(await fx.requests()).toEqual([]);
});

it('with Continue On Fail, the item comes out as an error item instead', async () => {
	const result = await fx.run(passOnce, {
		items: [{ json: { conversation_id: 'conv_1' } }],
		continueOnFail: true,
	});
	expect(result.items).toEqual([
		expect.objectContaining({
			json: expect.objectContaining({ error: expect.stringMatching(/processed-data store/) }),
		}),
	]);
});
