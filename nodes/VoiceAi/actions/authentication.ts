import type { INodeProperties } from 'n8n-workflow';

import type { VoiceAiAuthentication } from '../transport';

const values: Record<VoiceAiAuthentication, string> = {
	apiKey: 'API Key',
	apiKeyAndSipLogin: 'API Key and SIP Trunk Login',
};

/** Which credential the node uses (transport/credential.ts maps each value to its type). */
export const authenticationProperty: INodeProperties = {
	displayName: 'Authentication',
	name: 'authentication',
	type: 'options',
	options: [
		{
			name: values.apiKey,
			value: 'apiKey',
			description: 'A Voice AI API credential: base URL and API key',
		},
		{
			name: values.apiKeyAndSipLogin,
			value: 'apiKeyAndSipLogin',
			description:
				'A Voice AI with SIP Trunk Login API credential: base URL, API key and the login SIP Update and Compare send',
		},
	],
	default: 'apiKey',
	description:
		'Choose API Key and SIP Trunk Login to keep a SIP trunk password in an encrypted credential rather than in the workflow',
};
