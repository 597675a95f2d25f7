import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { invalidField, readInteger } from '../validation';
import { defineOperation } from '../types';
import { recordOnce } from './passOnceRecorder';

const ID_FIELD = { name: 'conversationId', label: 'Conversation ID' };
const HISTORY_FIELD = { name: 'historySize', label: 'History Size' };
const HISTORY_SIZE = 10_000;
const HISTORY_RANGE = { min: 1, max: 1_000_000 };

export const passOnce = defineOperation<{ id: string; historySize: number }>({
	name: 'Pass Once',
	summary:
		'Pass each conversation on once; drop items whose conversation this workflow has already passed',
	action: 'Pass each conversation once',
	changesData: false,
	requests: [],
	worksOn: "n8n's database",
	description: [
		{
			displayName:
				"Passes each conversation on once, across executions, n8n processes and restarts (the IDs are kept in n8n's database, as Remove Duplicates does). Sends nothing to Voice AI.",
			name: 'passOnceNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: ID_FIELD.label,
			name: ID_FIELD.name,
			type: 'string',
			required: true,
			default:
				'={{ $json._voiceAi ? $json._voiceAi.conversationId : ($json.conversation_id ?? $json.data?.conversation_id) }}',
			description:
				"What identifies a conversation. The default reads the Voice AI Trigger's output in either Output mode (conversation_id of the delivery, also inside a {data} envelope).",
		},
		{
			displayName: HISTORY_FIELD.label,
			name: HISTORY_FIELD.name,
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1_000_000 },
			default: HISTORY_SIZE,
			description:
				'How many conversation IDs this workflow remembers; the oldest are forgotten first',
		},
	],
	repeatable: true,
	passesItemOn: true,
	validate(itemIndex) {
		const raw = this.getNodeParameter(ID_FIELD.name, itemIndex, '') as unknown;
		const id = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
		if (typeof id !== 'string' || id.trim() === '') {
			const got = raw === undefined || raw === '' ? 'nothing' : JSON.stringify(raw);
			const hint =
				"Point 'Conversation ID' at the item's conversation ID, e.g. {{ $json.conversation_id }}. Nothing was recorded for this item.";
			throw invalidField(this, itemIndex, ID_FIELD, `expected a non-empty text, got ${got}`, hint);
		}
		const historySize = readInteger(this, itemIndex, HISTORY_FIELD, HISTORY_SIZE, HISTORY_RANGE);
		return { id: id.trim(), historySize };
	},
	async execute({ id, historySize }, _api, itemIndex) {
		const fail = (message: string, description: string) =>
			new NodeOperationError(this.getNode(), message, { itemIndex, description });
		// n8n adds its processed-data helpers as one set (DeduplicationHelperFunctions).
		if (typeof this.helpers.checkProcessedAndRecord !== 'function')
			throw fail(
				'This n8n has no processed-data store, so Pass Once cannot work here',
				'Pass Once needs an n8n whose Remove Duplicates node offers "Remove Items Processed in Previous Executions".',
			);
		const workflowId = String(this.getWorkflow().id);
		const isNew = await recordOnce(this.helpers, workflowId, id, historySize).catch((error) => {
			throw fail(
				`Could not read or record conversation "${id}" in n8n's processed-data store: ${(error as Error).message}`,
				'The item was not passed on. Run it again once n8n can reach its database.',
			);
		});
		return isNew ? [this.getInputData()[itemIndex].json as IDataObject] : [];
	},
});
