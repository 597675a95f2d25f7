import type {
	IAuthenticateRuleResponseCode,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** What a Voice AI API key looks like; the node checks the credential against it before sending. */
export const API_KEY_PATTERN = /^ct_\S+$/;

// For a base URL that is not http(s), n8n's credential test would show only the HTTP client's error code
// (ERR_BAD_REQUEST, ERR_INVALID_URL). Such a test is sent to a data: URL instead, which never leaves n8n:
// the HTTP client answers a POST to it with 405, and the 405 rule below says what is wrong. The data: URL
// is malformed on purpose, so a client that someday accepted the POST would still fail, never pass.
const BASE_URL_OK = '/^https?:\\/\\/[^\\s/?#]+/i.test(String($credentials.baseUrl ?? "").trim())';
const NOT_HTTP_URL = 'data:not-an-http-base-url';

/** n8n reports a status without a rule by its status text only ("Found"); these say what a redirect means here. */
const REDIRECT_RULES: IAuthenticateRuleResponseCode[] = [301, 302, 303, 307, 308].map((status) => ({
	type: 'responseCode',
	properties: {
		value: status,
		message: `The base URL answered ${status}, a redirect. The key is never sent on to another address, so the test stopped there: enter the address the redirect points to as the base URL, if it is the Voice AI API.`,
	},
}));

export class VoiceAiApi implements ICredentialType {
	name = 'voiceAiApi';

	displayName = 'Voice AI API';

	documentationUrl =
		'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/credentials.md';

	icon = {
		light: 'file:../nodes/VoiceAi/voiceai.svg',
		dark: 'file:../nodes/VoiceAi/voiceai.dark.svg',
	} as const;

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Base address of the Voice AI API as your account documentation gives it, starting with http:// or https://',
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

	/**
	 * Exactly one header carries the key. A value not shaped like a key (ct_...) is never sent: the header
	 * goes out empty and the service answers 401 (the Voice AI node checks the credential before sending
	 * anything). A function rather than a generic block: n8n runs it for every request, and a generic block
	 * costs two expression evaluations each time.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const key = String(credentials.apiKey ?? '').trim();
		const value = API_KEY_PATTERN.test(key) ? key : '';
		requestOptions.headers = { ...requestOptions.headers };
		if (credentials.authHeader === 'xApiKey') requestOptions.headers['X-API-Key'] = value;
		else requestOptions.headers.Authorization = value ? `Bearer ${value}` : '';
		return requestOptions;
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: `={{ ${BASE_URL_OK} ? String($credentials.baseUrl).trim().replace(/\\/+$/, "") : "" }}`,
			url: `={{ ${BASE_URL_OK} ? "/contacts/list-names" : "${NOT_HTTP_URL}" }}`,
			method: `={{ ${BASE_URL_OK} ? "GET" : "POST" }}` as IHttpRequestMethods,
			// n8n would follow a redirect to any origin with the key in its header.
			disableFollowRedirect: true,
		},
		rules: [
			...REDIRECT_RULES,
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
						'The Base URL is not an http:// or https:// address of the Voice AI API. Enter the base address from your account documentation.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'The Base URL does not point at the Voice AI API: check it against your account documentation.',
				},
			},
		],
	};
}
