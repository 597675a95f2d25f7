import type { IHookFunctions, INodeProperties, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiKeyOf, productionToken, withToken } from '../VoiceAi/accountOwnership/registration';

/**
 * The second way in (docs/trigger.md): a chatbot's own `webhook_url` points at this workflow, and
 * nothing is registered at the service, so the account's one webhook and its ownership stay untouched.
 */
export const RECEIVE_FROM_CHATBOT = 'chatbotWebhookUrl';

export const receiveFromProperty: INodeProperties = {
	displayName: 'Receive From',
	name: 'receiveFrom',
	type: 'options',
	default: 'accountWebhook',
	options: [
		{
			name: 'The Account Webhook (Registered on Publish)',
			value: 'accountWebhook',
			description:
				"Publishing points the organization's one webhook here: every conversation the account completes",
		},
		{
			name: "A Chatbot's Own Webhook URL (Nothing Registered)",
			value: RECEIVE_FROM_CHATBOT,
			description:
				"Only the conversations of chatbots whose webhook_url you set to this workflow's address; the account's webhook is left to others",
		},
	],
};

export const chatbotWebhookNotice: INodeProperties = {
	displayName:
		'Nothing is registered. Publish, and paste the address Listen for test event gives into the chatbot\'s Webhook URL in the dashboard. <a href="https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/trigger.md" target="_blank">Details</a>',
	name: 'chatbotWebhookNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { receiveFrom: [RECEIVE_FROM_CHATBOT] } },
};

export function receivesFromChatbot(this: IHookFunctions | IWebhookFunctions): boolean {
	return this.getNodeParameter('receiveFrom', 'accountWebhook') === RECEIVE_FROM_CHATBOT;
}

/** n8n's default path segments of test and production webhooks (N8N_ENDPOINT_WEBHOOK_TEST, _WEBHOOK). */
const TEST_SEGMENT = '/webhook-test/';
const PRODUCTION_SEGMENT = '/webhook/';

/**
 * A test listen in this way has nothing to listen for (the chatbot delivers to the production URL):
 * it stops with the address to paste, the production URL with the token its deliveries are checked
 * against. The editor shows the message; nothing is registered or stored.
 */
export async function refuseTestListenWithAddress(this: IHookFunctions): Promise<never> {
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
