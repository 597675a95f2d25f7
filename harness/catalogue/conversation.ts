import { bad } from './shared';
import type { OperationCases } from './types';

export const conversationCases: Record<string, OperationCases> = {
	passOnce: {
		// The engine harness has no n8n database: the store's absence is all it can show. That a new
		// conversation passes is shown on a real n8n (test/e2e/workflows), that it passes once too
		// (test/queue, test/e2e/crm-sync).
		example: {
			parameters: {},
			// Items run 5 at a time: the first goes to the store alone, the next two wait for its write and
			// go together, so conv_2 comes twice in one write and passes once.
			items: [
				{ json: { conversation_id: 'conv_1' } },
				{ json: { conversation_id: 'conv_2' } },
				{ json: { conversation_id: 'conv_2' } },
			],
			sends: [],
			check(result) {
				expect(result.items).toEqual([
					{ json: { conversation_id: 'conv_1' }, pairedItem: { item: 0 } },
					{ json: { conversation_id: 'conv_2' }, pairedItem: { item: 1 } },
				]);
			},
			checkInEngine(result) {
				expect(result.error?.message).toMatch(
					/^Could not read or record conversation "conv_1" in n8n's processed-data store/,
				);
			},
		},
		validBase: { conversationId: 'conv_1' },
		invalid: [
			...bad('conversationId', 'Conversation ID', ['', '   ', { id: 'conv_1' }, ['conv_1'], null], {
				good: 'conv_1',
			}),
			...bad('historySize', 'History Size', [0, -1, 1.5, 'many', 1_000_001], { good: 100 }),
		],
		failing: {
			items: [{ json: { conversation_id: 'conv_9' } }, { json: { conversation_id: '' } }],
			at: 1,
			message: /Conversation ID/,
			failsInEngine: [0, 1],
		},
	},
};
