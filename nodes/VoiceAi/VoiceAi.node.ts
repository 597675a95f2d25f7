import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

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
		// As written: n8n appends its tracking query to codex links only (it would cut off an anchor).
		documentationUrl: 'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai#operations',
		defaults: { name: 'Voice AI' },
		usableAsTool: true,
		// Where SIP Get, Update and Compare put SIP passwords, which the node hides.
		sensitiveOutputFields: ['', 'data.', 'sip.', 'wouldSend.', 'current.'].map(
			(at) => `${at}directions[*].options.sip_password`,
		),
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// One credential at a time, chosen by Authentication (transport/request.ts maps it to a type).
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
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				options: [
					{
						name: 'API Key',
						value: 'apiKey',
						description: 'A Voice AI API credential: base URL and API key',
					},
					{
						name: 'API Key and SIP Trunk Login',
						value: 'apiKeyAndSipLogin',
						description:
							'A Voice AI with SIP Trunk Login API credential: base URL, API key and the login SIP Update and Compare send',
					},
				],
				default: 'apiKey',
				description:
					'Choose API Key and SIP Trunk Login to keep a SIP trunk password in an encrypted credential rather than in the workflow',
			},
			...resourceAndOperationProperties(),
			requestOptionsDescription,
		],
	};

	methods = { listSearch: { searchAgents, searchPhoneNumbers } };

	execute = router;
}
