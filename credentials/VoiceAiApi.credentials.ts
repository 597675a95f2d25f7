import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestMethods,
	INodeProperties,
} from 'n8n-workflow';

// n8n resolves a generic header whose expression yields undefined to an empty string and still sends it,
// so the header's NAME is an expression too: exactly one header ever carries the key. A value that is not
// shaped like a key (ct_...) is never sent: the header goes out empty and the service answers 401.
// (n8n swallows errors thrown inside credential expressions, so they cannot refuse a request themselves;
// the Voice AI node checks the credential before sending anything.)
const KEY_VALUE = '(/^ct_\\S+$/.test(String($credentials.apiKey ?? "").trim()) ? String($credentials.apiKey).trim() : "")';

// For a base URL that is not http(s), n8n's credential test would show only the HTTP client's error code
// (ERR_BAD_REQUEST, ERR_INVALID_URL). Such a test is sent to a data: URL instead, which never leaves n8n:
// the HTTP client answers a POST to it with 405, and the 405 rule below says what is wrong. The data: URL
// is malformed on purpose, so a client that someday accepted the POST would still fail, never pass.
const BASE_URL_OK = '/^https?:\\/\\/[^\\s/?#]+/i.test(String($credentials.baseUrl ?? "").trim())';
const NOT_HTTP_URL = 'data:not-an-http-base-url';

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
				'={{ $credentials.authHeader === "xApiKey" ? "X-API-Key" : "Authorization" }}':
					`={{ ${KEY_VALUE} === "" ? "" : ($credentials.authHeader === "xApiKey" ? "" : "Bearer ") + ${KEY_VALUE} }}`,
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: `={{ ${BASE_URL_OK} ? String($credentials.baseUrl).trim().replace(/\\/+$/, "") : "" }}`,
			url: `={{ ${BASE_URL_OK} ? "/contacts/list-names" : "${NOT_HTTP_URL}" }}`,
			method: `={{ ${BASE_URL_OK} ? "GET" : "POST" }}` as IHttpRequestMethods,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was refused: it is missing, malformed (keys start with ct_) or revoked. Paste a current key from the Voice AI dashboard (Integrations, API access).',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 405,
					message:
						'The Base URL is not an http:// or https:// address of the Voice AI API. Enter the {base_url} from the API documentation, e.g. https://api.example.com.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'The base URL does not point at the Voice AI API: use the {base_url} from the API documentation.',
				},
			},
		],
	};
}
