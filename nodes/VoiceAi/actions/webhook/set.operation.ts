import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { identityOf } from '../../accountOwnership/identity';
import {
	forgetGhosts,
	holderForSet,
	isKnown,
	noteSet,
	oneAtATime,
} from '../../accountOwnership/state';
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

interface SetInput {
	webhook: string;
	takeOver: boolean;
}

export const set = defineOperation<SetInput>({
	name: 'Set',
	hint: "Register the account's webhook URL, replacing the current one",
	action: 'Set the account webhook',
	summary: "Points the account's one webhook at a URL",
	changesData: 'changes data',
	requests: [
		{
			method: 'GET',
			path: '/callback/standardCampaign',
			when: 'when another key on the base URL must be told apart',
		},
		{ method: 'POST', path: '/webhook/insert-webhook' },
	],
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
			takeOver: this.getNodeParameter('whenTriggerHolds', itemIndex, 'refuse') === 'takeOver',
		};
	},
	// The check and the write are one decision: no publish or unpublish in between.
	async execute(input, api, itemIndex) {
		return await oneAtATime(async () => {
			const readAgents = async () => await api('GET', '/callback/standardCampaign');
			const { identity } = await identityOf.call(this, 'ifNeeded', itemIndex, readAgents);
			forgetGhosts(identity, (message) => this.logger.warn(message));
			const held = holderForSet(identity);
			if (held !== undefined && !input.takeOver) {
				const { workflowName, workflowId } = held.holder;
				const holds = held.unsure ? 'may be held' : 'is held';
				throw new NodeOperationError(
					this.getNode(),
					`The Voice AI account's webhook ${holds} by the published workflow "${workflowName}" (ID ${workflowId}): setting it would cut that workflow off`,
					{
						itemIndex,
						description: `The service keeps one webhook URL per organization, whatever key reaches it${held.unsure ? ' (n8n cannot tell whether this key reaches the same one)' : ''}, and "${workflowName}" receives its conversations through it. The webhook was not changed. Unpublish "${workflowName}" first, or set "If a Published Trigger Holds It" to "Take It Over" here.`,
					},
				);
			}
			// A process that has not seen this organization since it started (n8n 2.x after a restart, a
			// queue-mode worker) cannot tell whether a published trigger would be cut off.
			if (!input.takeOver && !isKnown(identity)) {
				throw new NodeOperationError(
					this.getNode(),
					"n8n cannot tell whether a published workflow receives this Voice AI account's conversations, so the webhook was not set",
					{
						itemIndex,
						description:
							'This n8n process has not seen a Voice AI Trigger for this organization since it started (in queue mode, workers never do), and setting the webhook would cut such a workflow off without a word. The webhook was not changed. If no published workflow has a Voice AI Trigger for it, set "If a Published Trigger Holds It" to "Take It Over".',
					},
				);
			}
			const answer = await api('POST', '/webhook/insert-webhook', { webhook: input.webhook });
			const workflow = this.getWorkflow();
			noteSet(identity, {
				workflowId: String(workflow.id),
				workflowName: workflow.name ?? String(workflow.id),
				url: input.webhook,
			});
			return toRecords(answer);
		});
	},
});
