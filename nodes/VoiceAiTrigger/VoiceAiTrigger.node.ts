import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

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
				const published = this.getMode() !== 'manual';
				if (published) ownership.learnProductionUrl(this);
				if (!receivesFromChatbot.call(this)) return await ownership.holdsAccount.call(this);
				if (!published) return false;
				// Nothing to register; the account way's record, if the version before left one, is given
				// up in create.
				return registration.readRegistration(this.getWorkflowStaticData('node')) === undefined;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				if (!receivesFromChatbot.call(this)) await ownership.onCreate.call(this);
				else if (this.getMode() === 'manual') await refuseTestListenWithAddress.call(this);
				else await ownership.onDelete.call(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// Also in the chatbot way, whichever version's parameters n8n's teardown reads: an
				// account-way record is given up as unpublishing gives it up.
				await ownership.onDelete.call(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions) {
		const refuse = (status: number, message: string) => {
			this.getResponseObject().status(status).json({ error: { status, message } });
			return { noWebhookResponse: true };
		};
		const chatbotWay = receivesFromChatbot.call(this);
		const record = chatbotWay
			? undefined
			: registration.readRegistration(this.getWorkflowStaticData('node'));
		const valid = chatbotWay
			? await hasChatbotToken.call(this)
			: await hasAccountToken.call(this, record?.tokenHash);
		if (!valid) return refuse(401, 'Missing or wrong token');
		if (this.getMode() !== 'manual') ownership.learnProductionUrl(this);
		if (!chatbotWay) await ownership.noteDelivery.call(this, record);
		const read = await readRequestDeliveries(
			this.getHeaderData()['content-type'],
			this.getRequestObject(),
			() => this.getBodyData(),
		);
		if ('problem' in read) return refuse(read.status, read.problem);
		return startRuns.call(this, read.deliveries);
	}
}

function givenToken(this: IWebhookFunctions): string | undefined {
	const given = (this.getQueryData() as Record<string, unknown>)[registration.TOKEN_PARAMETER];
	return typeof given === 'string' && given !== '' ? given : undefined;
}

// Also the current key's token: after a key rotation, a test listen restores the URL with it.
async function hasAccountToken(this: IWebhookFunctions, registeredHash?: string) {
	const given = givenToken.call(this);
	if (given === undefined) return false;
	if (registeredHash && registration.tokenMatches(given, registeredHash)) return true;
	if (this.getMode() === 'manual') return false;
	const url = this.getNodeWebhookUrl('default') as string;
	const token = registration.productionToken(await registration.apiKeyOf.call(this), url);
	return registration.tokenMatches(given, registration.hashToken(token));
}

/**
 * Only the chatbot way's token, only at the production URL: nothing listens for a chatbot at the
 * test URL.
 */
async function hasChatbotToken(this: IWebhookFunctions) {
	const given = givenToken.call(this);
	if (given === undefined || this.getMode() === 'manual') return false;
	const url = this.getNodeWebhookUrl('default') as string;
	const token = registration.chatbotToken(await registration.apiKeyOf.call(this), url);
	return registration.tokenMatches(given, registration.hashToken(token));
}

function receivesFromChatbot(this: IHookFunctions | IWebhookFunctions): boolean {
	return this.getNodeParameter('receiveFrom', 'accountWebhook') === RECEIVE_FROM_CHATBOT;
}

/**
 * The address holds a secret token, and n8n writes a test listen's error message to its log: the
 * address is the description, which n8n shows (Show Details) for a NodeApiError and does not log.
 */
async function refuseTestListenWithAddress(this: IHookFunctions): Promise<never> {
	// Only a learnt URL: an address guessed from n8n's default paths may be wrong
	// (N8N_ENDPOINT_WEBHOOK).
	const url = ownership.productionUrlOf(this, false);
	if (url === undefined)
		throw new NodeOperationError(
			this.getNode(),
			"Nothing to listen for, and n8n tells the chatbot's address only to a published workflow: publish this workflow (if it is published, unpublish and publish it), then Listen for test event again to get the address for the chatbot's Webhook URL",
		);
	const token = registration.chatbotToken(await registration.apiKeyOf.call(this), url);
	throw new NodeApiError(
		this.getNode(),
		{},
		{
			message:
				"Nothing to listen for: copy the address under Show Details into the chatbot's Webhook URL in the Voice AI dashboard, and keep this workflow published",
			description: `${registration.withToken(url, token)} is the address. Treat it as a secret: its token proves a delivery comes from your account. Receive From is set to a chatbot's own webhook URL, so this trigger registers nothing: the chatbot delivers to the published workflow.`,
		},
	);
}
