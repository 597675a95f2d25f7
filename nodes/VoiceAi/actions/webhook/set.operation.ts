import type { INodeProperties } from 'n8n-workflow';

import { setAccountWebhook } from '../../accountOwnership/ownership';
import { checkHttpUrl, checkOneOf, fieldsIn, readString } from '../validation';
import { defineOperation, request, toRecords } from '../types';

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
	{
		displayName: 'If a Published Trigger Holds It',
		name: 'whenTriggerHolds',
		type: 'options',
		default: 'refuse',
		description:
			"What happens when a published workflow's Voice AI Trigger receives this organization's conversations, or when this n8n process cannot tell (after n8n starts, until a trigger of the organization is published or receives a delivery; a queue-mode worker)",
		options: [
			{
				name: 'Refuse',
				value: 'refuse',
				description: 'Fail, naming the workflow (or saying n8n cannot tell), and send nothing',
			},
			{
				name: 'Take It Over',
				value: 'takeOver',
				description:
					'Point the webhook here; that workflow receives nothing until it is published again',
			},
		],
	},
];

const FIELDS = fieldsIn(properties, ['webhookUrl', 'whenTriggerHolds']);
const LIST_AGENTS = request('GET', '/callback/standardCampaign');

export const set = defineOperation({
	name: 'Set',
	summary: "Register the account's webhook URL, replacing the current one",
	action: 'Set the account webhook',
	changesData: 'changes data',
	requests: [
		{ ...LIST_AGENTS, when: 'when another key on the base URL must be told apart' },
		request('POST', '/webhook/insert-webhook'),
	],
	description: properties,
	repeatable: true,
	validate(itemIndex) {
		const url = readString(this, itemIndex, FIELDS.webhookUrl, {
			required: true,
			check: checkHttpUrl,
		});
		// Any other value (an expression's `takeover`) is refused: read as Refuse, its advice misleads.
		const when = readString(this, itemIndex, FIELDS.whenTriggerHolds, { fallback: 'refuse' });
		const allowed = ['refuse', 'takeOver'] as const;
		return {
			url,
			takeOver: checkOneOf(this, itemIndex, FIELDS.whenTriggerHolds, when, allowed) === 'takeOver',
		};
	},
	async execute(input, api, itemIndex) {
		return toRecords(await setAccountWebhook.call(this, { ...input, itemIndex }, api));
	},
});
