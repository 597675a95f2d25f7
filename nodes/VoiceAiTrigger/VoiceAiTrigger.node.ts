import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import * as ownership from '../VoiceAi/accountOwnership/ownership';
import * as registration from '../VoiceAi/accountOwnership/registration';
import { searchAgents } from '../VoiceAi/listSearch/agentList';
import { readRequestDeliveries, startRuns } from './delivery';
import { RECEIVE_FROM_CHATBOT, respondWhenWebhookFields, triggerProperties } from './properties';

export class VoiceAiTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI Trigger',
		name: 'voiceAiTrigger',
		icon: { light: 'file:voiceAiTrigger.svg', dark: 'file:voiceAiTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1: as 1, without an expression isolate per delivery (docs/trigger-performance.md).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["output"] === "raw" ? "Raw deliveries" : "Conversation variables" }}',
		description: 'Starts the workflow with the variables of each completed Voice AI conversation',
		defaults: { name: 'Voice AI Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceAiApi', required: true }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', ...respondWhenWebhookFields, path: 'webhook' },
		],
		properties: triggerProperties,
	};

	methods = { listSearch: { searchAgents } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				if (receivesFromChatbot.call(this)) return this.getMode() !== 'manual';
				return await ownership.holdsAccount.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				if (!receivesFromChatbot.call(this)) await ownership.onCreate.call(this);
				else if (this.getMode() === 'manual') await refuseTestListenWithAddress.call(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				if (!receivesFromChatbot.call(this)) await ownership.onDelete.call(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions) {
		const refuse = (status: number, message: string) => {
			this.getResponseObject().status(status).json({ error: { status, message } });
			return { noWebhookResponse: true };
		};
		const record = registration.readRegistration(this.getWorkflowStaticData('node'));
		if (!(await hasValidToken.call(this, record?.tokenHash)))
			return refuse(401, 'Missing or wrong token');
		if (!receivesFromChatbot.call(this)) await ownership.noteDelivery.call(this, record);
		const read = await readRequestDeliveries(
			this.getHeaderData()['content-type'],
			this.getRequestObject(),
			() => this.getBodyData(),
		);
		if ('problem' in read) return refuse(read.status, read.problem);
		return startRuns.call(this, read.deliveries);
	}
}

// Also the current key's token: after a key rotation, a test listen restores the URL with it.
async function hasValidToken(this: IWebhookFunctions, registeredHash?: string) {
	const given = (this.getQueryData() as Record<string, unknown>)[registration.TOKEN_PARAMETER];
	if (typeof given !== 'string' || given === '') return false;
	if (registeredHash && registration.tokenMatches(given, registeredHash)) return true;
	if (this.getMode() === 'manual') return false;
	const url = this.getNodeWebhookUrl('default') as string;
	const token = registration.productionToken(await registration.apiKeyOf.call(this), url);
	return registration.tokenMatches(given, registration.hashToken(token));
}

function receivesFromChatbot(this: IHookFunctions | IWebhookFunctions): boolean {
	return this.getNodeParameter('receiveFrom', 'accountWebhook') === RECEIVE_FROM_CHATBOT;
}

async function refuseTestListenWithAddress(this: IHookFunctions): Promise<never> {
	// n8n's default path segments (N8N_ENDPOINT_WEBHOOK_TEST, N8N_ENDPOINT_WEBHOOK).
	const testUrl = this.getNodeWebhookUrl('default') as string;
	const url = testUrl.replace('/webhook-test/', '/webhook/');
	if (url === testUrl)
		throw new NodeOperationError(
			this.getNode(),
			`n8n's test URL ${testUrl} does not contain /webhook-test/, so the production address cannot be told from it`,
		);
	const token = registration.productionToken(await registration.apiKeyOf.call(this), url);
	throw new NodeOperationError(
		this.getNode(),
		`Nothing to listen for: set the chatbot's Webhook URL in the Voice AI dashboard to ${registration.withToken(url, token)}`,
		{
			description:
				"Receive From is set to a chatbot's own webhook URL: this trigger registers nothing, and the chatbot delivers to the published workflow at this address. Treat it as a secret: its token proves a delivery comes from your account. Publish the workflow to receive.",
		},
	);
}
