import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import {
	holdsAccount,
	noteDelivery,
	onCreate,
	onDelete,
} from '../VoiceAi/accountOwnership/ownership';
import {
	apiKeyOf,
	productionToken,
	readRegistration,
	withToken,
} from '../VoiceAi/accountOwnership/registration';
import { searchAgents } from '../VoiceAi/listSearch/agentList';
import { hasValidToken, readRequestDeliveries, startRuns } from './delivery';
import { RECEIVE_FROM_CHATBOT, respondWhenWebhookFields, triggerProperties } from './properties';

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
	 * Who holds the organization's one webhook: accountOwnership/ownership.ts and its rules. Received
	 * from a chatbot's own webhook URL, nothing is registered and ownership never sees the trigger:
	 * a publish finds it "exists", and a test listen stops with the address to paste (below).
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

		// n8n has parsed JSON, text and form bodies (getBodyData); from version 1.1 it leaves an
		// application/*+json body or one without a content type for the node to read.
		const read = await readRequestDeliveries(
			this.getHeaderData()['content-type'],
			this.getRequestObject(),
			() => this.getBodyData(),
		);
		if ('problem' in read) return refuse(read.status, read.problem);

		return startRuns.call(this, read.deliveries);
	}
}

function receivesFromChatbot(this: IHookFunctions | IWebhookFunctions): boolean {
	return this.getNodeParameter('receiveFrom', 'accountWebhook') === RECEIVE_FROM_CHATBOT;
}

/** n8n's default path segments of test and production webhooks (N8N_ENDPOINT_WEBHOOK_TEST, _WEBHOOK). */
const TEST_SEGMENT = '/webhook-test/';
const PRODUCTION_SEGMENT = '/webhook/';

/**
 * Received from a chatbot's own webhook URL, a test listen has nothing to listen for (the chatbot
 * delivers to the production URL): it stops with the address to paste, the production URL with the
 * token its deliveries are checked against. The editor shows the message; nothing is registered or stored.
 */
async function refuseTestListenWithAddress(this: IHookFunctions): Promise<never> {
	const testUrl = this.getNodeWebhookUrl('default') as string;
	if (!testUrl.includes(TEST_SEGMENT)) {
		throw new NodeOperationError(
			this.getNode(),
			`n8n's test URL ${testUrl} does not contain ${TEST_SEGMENT}, so the production address cannot be told from it`,
		);
	}
	const productionUrl = testUrl.replace(TEST_SEGMENT, PRODUCTION_SEGMENT);
	const address = withToken(
		productionUrl,
		productionToken(await apiKeyOf.call(this), productionUrl),
	);
	throw new NodeOperationError(
		this.getNode(),
		`Nothing to listen for: set the chatbot's Webhook URL in the Voice AI dashboard to ${address}`,
		{
			description:
				"Receive From is set to a chatbot's own webhook URL: this trigger registers nothing, and the chatbot delivers to the published workflow at this address. Treat it as a secret: its token proves a delivery comes from your account. Publish the workflow to receive.",
		},
	);
}
