import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { authenticationProperty } from './actions/authentication';
import { resourceAndOperationProperties, subtitleExpression } from './actions/registry';
import { router } from './actions/router';
import { requestOptionsDescription } from './actions/requestOptions';
import { searchAgents, searchPhoneNumbers } from './listSearch/agentList';

export class VoiceAi implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI',
		name: 'voiceAi',
		icon: { light: 'file:voiceai.svg', dark: 'file:voiceai.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: subtitleExpression(),
		description:
			'Manage agents, chatbot widgets, SIP trunks, trust products, contact lists and the webhook of a Voice AI organization',
		// Used as written (n8n appends its tracking query only to codex links, which would cut off an anchor).
		documentationUrl: 'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai#operations',
		defaults: { name: 'Voice AI' },
		usableAsTool: true,
		// Where SIP Get, Update and Compare put SIP passwords; the node itself hides them (docs/sip-credentials.md).
		sensitiveOutputFields: ['', 'data.', 'sip.', 'wouldSend.', 'current.'].map(
			(at) => `${at}directions[*].options.sip_password`,
		),
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// One credential at a time, chosen by Authentication; literal values, as n8n's lint reads them.
		credentials: [
			{
				name: 'voiceAiApi',
				required: true,
				displayOptions: { show: { authentication: ['apiKey'] } },
			},
			{
				name: 'voiceAiWithSipLoginApi',
				required: true,
				displayOptions: { show: { authentication: ['apiKeyAndSipLogin'] } },
			},
		],
		properties: [
			authenticationProperty,
			...resourceAndOperationProperties(),
			requestOptionsDescription,
		],
	};

	methods = { listSearch: { searchAgents, searchPhoneNumbers } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
