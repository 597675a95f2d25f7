import type { INodeProperties } from 'n8n-workflow';

/** Which credential the node uses (transport/credential.ts maps each value to its type). */
export const authenticationProperty: INodeProperties = {
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
};
