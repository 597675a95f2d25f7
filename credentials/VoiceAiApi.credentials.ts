import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

// n8n resolves a generic header whose expression yields undefined to an empty string and still sends it,
// so the header's NAME is an expression too: exactly one header ever carries the key.
// A key without the ct_ prefix or a base URL without http(s):// makes the expression throw, so n8n refuses
// the request (in this node, in the HTTP Request node and in the credential test) before anything is sent.
const keyCheck =
	'(/^ct_\\S+$/.test(String($credentials.apiKey ?? "").trim()) ? "" : (() => { throw new Error("The Voice AI API key must start with ct_ (copy the whole key from Integrations, API access)") })())';
const urlCheck =
	'(/^https?:\\/\\/[^\\s\\/?#]+/i.test(String($credentials.baseUrl ?? "").trim()) ? "" : (() => { throw new Error("The Voice AI base URL must start with http:// or https://") })())';

export class VoiceAiApi implements ICredentialType {
	name = 'voiceAiApi';

	displayName = 'Voice AI API';

	documentationUrl = 'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai#credentials';

	icon = { light: 'file:../nodes/VoiceAi/voiceai.svg', dark: 'file:../nodes/VoiceAi/voiceai.dark.svg' } as const;

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'The {base_url} of the Voice AI API, starting with http:// or https://. Use the sandbox address to try the nodes without an account.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'ct_...',
			description:
				'Organization API key from the dashboard (Integrations, API access). It starts with ct_ and only ever travels in a request header.',
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
				[`={{ ${urlCheck} + ${keyCheck} + ($credentials.authHeader === "xApiKey" ? "X-API-Key" : "Authorization") }}`]:
					'={{ ($credentials.authHeader === "xApiKey" ? "" : "Bearer ") + String($credentials.apiKey).trim() }}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "") }}',
			url: '/contacts/list-names',
			method: 'GET',
		},
	};
}
