import type {
	IAuthenticateRuleResponseCode,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** What a Voice AI API key looks like; the node checks the credential against it before sending. */
export const API_KEY_PATTERN = /^ct_\S+$/;

// The credential test goes to this path of the base URL when the base URL is http(s), and to this
// stand-in URL otherwise; `authenticate` refuses the stand-in, so that test sends nothing and says what
// is wrong on every n8n line (n8n's own text would be the HTTP client's error code).
const BASE_URL_OK = '/^https?:\\/\\/[^\\s/?#]+/i.test(String($credentials.baseUrl ?? "").trim())';
const TEST_PATH = '/contacts/list-names';
const NOT_HTTP_URL = 'data:not-an-http-base-url';

const KEY_REFUSED =
	'The API key was refused: it is missing, malformed (keys start with ct_) or revoked. Paste a current key from the Voice AI dashboard (Integrations, API access).';
const BASE_URL_NOT_HTTP =
	'The Base URL is not an http:// or https:// address of the Voice AI API. Enter the base address from your account documentation.';

/**
 * Test requests this credential has put its key on. n8n hands a request back to `authenticate` only to
 * send it again after a 401 (its re-authentication for expiring tokens, on 1.x and 2.x alike). A
 * static key refused once is refused again, so the test stops there with the package's message: on
 * n8n 1.x the test's response-code rules never apply (its NodeApiError drops the HTTP client's error,
 * so n8n would show its generic "Authorization failed" text).
 */
const keyedTests = new WeakSet<IHttpRequestOptions>();

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
		// Plain errors: n8n shows their message as it is, on 1.x and 2.x.
		if (requestOptions.url === NOT_HTTP_URL) throw new Error(BASE_URL_NOT_HTTP);
		if (requestOptions.url === TEST_PATH) {
			if (keyedTests.has(requestOptions)) throw new Error(KEY_REFUSED);
			keyedTests.add(requestOptions);
		}
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
			url: `={{ ${BASE_URL_OK} ? "${TEST_PATH}" : "${NOT_HTTP_URL}" }}`,
			method: 'GET',
			// n8n would follow a redirect to any origin with the key in its header.
			disableFollowRedirect: true,
		},
		rules: [
			...REDIRECT_RULES,
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: KEY_REFUSED,
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
