import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class VoiceAiApi implements ICredentialType {
	name = 'voiceAiApi';

	displayName = 'Voice AI API';

	documentationUrl = 'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai#credentials';

	icon = 'file:../nodes/VoiceAi/voiceai.svg' as const;

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'The {base_url} of the Voice AI API, with http:// or https://. Use the sandbox address to try the nodes without an account.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'ct_...',
			description: 'Organization API key from the dashboard (Integrations, API access). It starts with ct_ and only ever travels in a request header.',
		},
		{
			displayName: 'Send Key In',
			name: 'authHeader',
			type: 'options',
			default: 'bearer',
			options: [
				{ name: 'Authorization: Bearer Header', value: 'bearer' },
				{ name: 'X-API-Key Header', value: 'xApiKey' },
			],
			description: 'Which request header carries the API key; the service accepts both',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{ $credentials.authHeader === "xApiKey" ? undefined : "Bearer " + $credentials.apiKey }}',
				'X-API-Key': '={{ $credentials.authHeader === "xApiKey" ? $credentials.apiKey : undefined }}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
			url: '/contacts/list-names',
			method: 'GET',
		},
	};
}
