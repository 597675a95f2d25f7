import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkHttpUrl, readString } from '../validation';
import { defineOperation, toRecords } from '../types';

const properties: INodeProperties[] = [
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/voiceai/completed',
		description:
			'Address that receives the variables of every completed conversation. Replaces the one registered before; a Voice AI Trigger node registers its own address this way.',
	},
];

export const set = defineOperation<{ webhook: string }>({
	description: updateDisplayOptions(
		{ show: { resource: ['webhook'], operation: ['set'] } },
		properties,
	),
	// Setting the same URL twice leaves the same state.
	repeatable: true,
	validate(itemIndex) {
		const field = { name: 'webhookUrl', label: 'Webhook URL' };
		return {
			webhook: checkHttpUrl(
				this,
				itemIndex,
				field,
				readString(this, itemIndex, field, { required: true }),
			),
		};
	},
	async execute(input, api) {
		return toRecords(await api('POST', '/webhook/insert-webhook', { webhook: input.webhook }));
	},
});
