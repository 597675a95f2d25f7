import type {
	IAuthenticateRuleResponseCode,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	API_CHECK_PATH,
	API_KEY_PATTERN,
	BASE_URL_RULE,
	outsideBaseUrl,
	parseBaseUrl,
} from './voiceAiBaseUrl';

// The credential test goes to API_CHECK_PATH of the Base URL. Its request names a stand-in address that can
// never be reached (`.invalid`, RFC 6761); `authenticate` replaces it with the Base URL as
// parseBaseUrl reads it, or refuses a Base URL that breaks the rule, so the test sends nothing then and
// says what is wrong on every n8n line (n8n's own text would be the HTTP client's error code).
const UNCHECKED_BASE_URL = 'https://base-url-not-checked.invalid';

const KEY_REFUSED =
	'The API key was refused: it is missing, malformed (keys start with ct_) or revoked. Paste a current key from the Voice AI dashboard (Integrations, API access).';

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

/** The redirect options of n8n's legacy request helper (what its HTTP Request node uses), besides IHttpRequestOptions'. */
type LegacyRedirectOptions = IHttpRequestOptions & {
	followRedirect?: boolean;
	followAllRedirects?: boolean;
};

/** No request with the key follows a redirect, whichever of n8n's request helpers sends it. */
function noRedirects(options: LegacyRedirectOptions): void {
	options.disableFollowRedirect = true;
	options.followRedirect = false;
	options.followAllRedirects = false;
	options.maxRedirects = 0;
}

/** True for the credential test's request (n8n hands the test request to `authenticate` too). */
export function isCredentialTestRequest(requestOptions: IHttpRequestOptions): boolean {
	return requestOptions.url === API_CHECK_PATH;
}

/**
 * Exactly one header carries the key, and only to the base URL: n8n runs this for every request made
 * with the credential (the Voice AI nodes, the credential test, n8n's HTTP Request node), so a request
 * to another origin, or outside the base URL's path, fails here before it is sent, and no request
 * made with the credential follows a redirect (n8n would send the X-API-Key header, and on some
 * versions Authorization, on to any origin). A value not shaped like a key (ct_...) is never sent: the
 * header goes out empty and the service answers 401 (the Voice AI node checks the credential before
 * sending anything). A function rather than a generic block: a generic block can neither check nor
 * refuse, and costs two expression evaluations per request. Shared by every credential type that
 * carries the key.
 */
export async function authenticateVoiceAiRequest(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	// Plain errors: n8n shows their message as it is, on 1.x and 2.x.
	const baseUrl = parseBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok)
		throw new Error(`The Base URL ${baseUrl.problem}. ${BASE_URL_RULE} Nothing was sent.`);
	if (isCredentialTestRequest(requestOptions)) {
		if (keyedTests.has(requestOptions)) throw new Error(KEY_REFUSED);
		requestOptions.baseURL = baseUrl.url.base;
		keyedTests.add(requestOptions);
	}
	const outside = outsideBaseUrl(baseUrl.url, requestOptions);
	if (outside)
		throw new Error(
			`The Voice AI API credential sends its key only to its base URL, ${baseUrl.url.base}: ${outside}, so nothing was sent. Use a URL that starts with the base URL, or another credential for other addresses.`,
		);
	noRedirects(requestOptions as LegacyRedirectOptions);
	const key = String(credentials.apiKey ?? '').trim();
	const value = API_KEY_PATTERN.test(key) ? key : '';
	requestOptions.headers = { ...requestOptions.headers };
	if (credentials.authHeader === 'xApiKey') requestOptions.headers['X-API-Key'] = value;
	else requestOptions.headers.Authorization = value ? `Bearer ${value}` : '';
	return requestOptions;
}

/** The credential test of every credential type that carries the key: a read that changes nothing. */
export const voiceAiCredentialTest: ICredentialTestRequest = {
	request: {
		baseURL: UNCHECKED_BASE_URL,
		url: API_CHECK_PATH,
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
				'Base address of the Voice AI API as your account documentation gives it: http:// or https://, a host and an optional path, with no user name, password, query or fragment',
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

	authenticate = authenticateVoiceAiRequest;

	test = voiceAiCredentialTest;
}
