import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchAgents } from '../VoiceAi/listSearch/searchAgents';
import { readRequestDeliveries } from './delivery';
import {
	holdsAccount,
	noteDelivery,
	onCreate,
	onDelete,
} from '../VoiceAi/accountOwnership/ownership';
import { triggerProperties } from './properties';
import { receivesFromChatbot, refuseTestListenWithAddress } from './receiveFrom';
import { readRegistration } from '../VoiceAi/accountOwnership/registration';
import { respondWhenWebhookFields } from './respondWhen';
import { startRuns } from './startRuns';
import { hasValidToken } from './verification';

export class VoiceAiTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI Trigger',
		name: 'voiceAiTrigger',
		icon: { light: 'file:voiceAiTrigger.svg', dark: 'file:voiceAiTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1. n8n evaluates an expression (a version-1 Webhook node's binaryData option)
		// for every request to a start node of version 1, which costs an expression isolate per
		// delivery; from 1.1 on it does not, and leaves bodies other than JSON, text, form and XML
		// for the node to read (see webhook()). docs/trigger-performance.md has the measurements.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["output"] === "raw" ? "Raw deliveries" : "Conversation variables" }}',
		description:
			'Starts the workflow with the variables extracted from each completed Voice AI conversation',
		defaults: { name: 'Voice AI Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceAiApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// responseData: without it n8n answers a started delivery with the literal text "firstEntryJson".
				...respondWhenWebhookFields,
				path: 'webhook',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		listSearch: { searchAgents },
	};

	/**
	 * Who holds the organization's one webhook: ./ownership.ts and its rules. Received
	 * from a chatbot's own webhook URL, nothing is registered and ownership never sees the trigger:
	 * a publish finds it "exists", and a test listen stops with the address to paste (./receiveFrom.ts).
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				if (receivesFromChatbot.call(this)) return this.getMode() !== 'manual';
				return await holdsAccount.call(this);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				if (!receivesFromChatbot.call(this)) await onCreate.call(this);
				else if (this.getMode() === 'manual') await refuseTestListenWithAddress.call(this);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				if (receivesFromChatbot.call(this)) return true;
				await onDelete.call(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = this.getResponseObject();
		const refuse = (status: number, message: string): IWebhookResponseData => {
			response.status(status).json({ error: { status, message } });
			return { noWebhookResponse: true };
		};

		const record = readRegistration(this.getWorkflowStaticData('node'));
		if (!(await hasValidToken.call(this, record))) return refuse(401, 'Missing or wrong token');
		if (!receivesFromChatbot.call(this)) await noteDelivery.call(this, record);

		const headers = this.getHeaderData();
		// Version 1.1: n8n leaves some bodies (an application/*+json type, no type) for the node to read.
		const read = await readRequestDeliveries(headers['content-type'], this.getRequestObject(), () =>
			this.getBodyData(),
		);
		if ('problem' in read) return refuse(read.status, read.problem);

		return startRuns.call(this, read.deliveries);
	}
}
