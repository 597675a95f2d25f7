import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as agent from './actions/agent';
import * as chatbot from './actions/chatbot';
import * as contact from './actions/contact';
import * as conversation from './actions/conversation';
import { router } from './actions/router';
import * as sip from './actions/sip';
import { sipTrunkLoginTest } from './actions/sip/loginTest';
import * as trustProduct from './actions/trustProduct';
import * as webhook from './actions/webhook';
import { requestOptionsDescription } from './actions/requestOptions';
import { searchAgents } from './listSearch/searchAgents';
import { searchPhoneNumbers } from './listSearch/searchPhoneNumbers';

export class VoiceAi implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI',
		name: 'voiceAi',
		icon: { light: 'file:voiceai.svg', dark: 'file:voiceai.dark.svg' },
		group: ['transform'],
		version: 1,
		// "Get many: agent", "Update: SIP" rather than the raw values; unknown values show as they are.
		subtitle:
			'={{ (({ getAll: "Get many", getListNames: "Get list names", get: "Get", create: "Create", update: "Update", compare: "Compare", detach: "Detach", set: "Set" })[$parameter["operation"]] || $parameter["operation"]) + ": " + (({ sip: "SIP", trustProduct: "trust product" })[$parameter["resource"]] || $parameter["resource"]) }}',
		description:
			'Manage agents, chatbot widgets, SIP trunks, trust products, contact lists and the webhook of a Voice AI organization',
		// Used as written (n8n appends its tracking query only to codex links, which would cut off an anchor).
		documentationUrl: 'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai#operations',
		defaults: { name: 'Voice AI' },
		usableAsTool: true,
		// Where SIP Get, Update and Compare put SIP passwords; the node itself hides them (docs/sip-credentials.md).
		sensitiveOutputFields: [
			'directions[*].options.sip_password',
			'data.directions[*].options.sip_password',
			'sip.directions[*].options.sip_password',
			'wouldSend.directions[*].options.sip_password',
			'current.directions[*].options.sip_password',
		],
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'voiceAiApi', required: true },
			{
				name: 'voiceAiSipLoginApi',
				required: true,
				testedBy: 'sipTrunkLoginTest',
				displayOptions: {
					show: { resource: ['sip'], operation: ['update', 'compare'], sipLogin: ['credential'] },
				},
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Agent', value: 'agent' },
					{ name: 'Chatbot', value: 'chatbot' },
					{ name: 'Contact', value: 'contact' },
					{ name: 'Conversation', value: 'conversation' },
					{ name: 'SIP', value: 'sip' },
					{ name: 'Trust Product', value: 'trustProduct' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'agent',
			},
			...agent.description,
			...chatbot.description,
			...contact.description,
			...conversation.description,
			...sip.description,
			...trustProduct.description,
			...webhook.description,
			requestOptionsDescription,
		],
	};

	methods = {
		credentialTest: { sipTrunkLoginTest },
		listSearch: { searchAgents, searchPhoneNumbers },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
