import type {
	IAuthenticateRuleResponseCode,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { API_CHECK_PATH, API_KEY_PATTERN, BASE_URL_RULE, parseBaseUrl } from './voiceAiBaseUrl';

const KEY_REFUSED =
	'The API key was refused: it is missing, malformed (keys start with ct_) or revoked. Paste a current key from the Voice AI dashboard (Integrations, API access).';

export const VOICE_AI_ICON = {
	light: 'file:../nodes/VoiceAi/voiceai.svg',
	dark: 'file:../nodes/VoiceAi/voiceai.dark.svg',
} as const;

/**
 * Test requests this credential has put its key on. n8n hands a request back to `authenticate` only to
 * resend it after a 401: a static key refused once is refused again (n8n 1.x ignores the 401 rule).
 */
const keyedTests = new WeakSet<IHttpRequestOptions>();

/** An absolute URL, as axios (which sends n8n's requests) tells it from a path to join to `baseURL`. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * `authenticate` of the credentials that carry the key, run for every request made with them (the
 * Voice AI nodes, the test, n8n's HTTP Request node). One header carries the key, and only to the base
 * URL's origin, within its path as the URL parser reads it (so `..` cannot leave it); a request
 * elsewhere fails before it is sent, naming the origin, never path or query. None follows a redirect,
 * with either of n8n's request helpers. A value not shaped like a key is never sent (the header goes
 * out empty). With `sipLogin`, the test first checks both SIP login fields: no request checks a SIP
 * login without changing a number. Plain errors: n8n shows them as they are.
 */
export function voiceAiAuthenticate(sipLogin: boolean): ICredentialType['authenticate'] {
	return async (credentials, requestOptions) => {
		// n8n hands the credential test's request to `authenticate` too.
		const isTest = requestOptions.url === API_CHECK_PATH;
		const { sipUsername: user, sipPassword: password } = credentials;
		const empty =
			typeof user !== 'string' || !user.trim()
				? 'SIP Username'
				: typeof password !== 'string' || !password
					? 'SIP Password'
					: undefined;
		if (sipLogin && isTest && empty)
			throw new Error(`Fill in the ${empty}: SIP Update and Compare need both. Nothing was sent.`);
		const baseUrl = parseBaseUrl(credentials.baseUrl);
		if (!baseUrl.ok)
			throw new Error(`The Base URL ${baseUrl.problem}. ${BASE_URL_RULE} Nothing was sent.`);
		if (isTest) {
			if (keyedTests.has(requestOptions)) throw new Error(KEY_REFUSED);
			requestOptions.baseURL = baseUrl.url.base;
			keyedTests.add(requestOptions);
		}
		const { origin, base } = baseUrl.url;
		const outside = (why: string) =>
			new Error(
				`The Voice AI API credential sends its key only to its base URL, ${base}: this request ${why}, so nothing was sent. Use a URL that starts with the base URL, or another credential for other addresses.`,
			);
		// Joined as axios joins them; the legacy request helper's `uri` stands for `url`.
		const url = String(requestOptions.url ?? (requestOptions as { uri?: unknown }).uri ?? '');
		const baseURL = String(requestOptions.baseURL ?? '');
		const joined =
			!baseURL || ABSOLUTE_URL.test(url)
				? url
				: url
					? `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}`
					: baseURL;
		if (!URL.canParse(joined)) throw outside('has no address the URL parser reads');
		const target = new URL(joined);
		if (target.origin !== origin) throw outside(`goes to ${target.origin}`);
		const basePath = base.slice(origin.length);
		if (basePath && target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`))
			throw outside(`goes to a path of ${target.origin} outside ${basePath}`);
		const key = String(credentials.apiKey ?? '').trim();
		const value = API_KEY_PATTERN.test(key) ? key : '';
		const header =
			credentials.authHeader === 'xApiKey'
				? { 'X-API-Key': value }
				: { Authorization: value ? `Bearer ${value}` : '' };
		return Object.assign(requestOptions, {
			headers: { ...requestOptions.headers, ...header },
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
			maxRedirects: 0,
		});
	};
}

/** n8n reports a status without a rule by its status text only ("Found"). */
const rule = (value: number, message: string): IAuthenticateRuleResponseCode => ({
	type: 'responseCode',
	properties: { value, message },
});

/**
 * A read that changes nothing. Its `.invalid` base URL (RFC 6761) is never reached: `authenticate`
 * replaces it with the Base URL, or refuses a Base URL that breaks the rule, saying what is wrong.
 */
export const voiceAiCredentialTest: ICredentialTestRequest = {
	request: { baseURL: 'https://base-url-not-checked.invalid', url: API_CHECK_PATH, method: 'GET' },
	rules: [
		...[301, 302, 303, 307, 308].map((status) =>
			rule(
				status,
				`The base URL answered ${status}, a redirect. The key is never sent on to another address, so the test stopped there: enter the address the redirect points to as the base URL, if it is the Voice AI API.`,
			),
		),
		rule(401, KEY_REFUSED),
		rule(
			404,
			'The Base URL does not point at the Voice AI API: check it against your account documentation.',
		),
	],
};

export class VoiceAiApi implements ICredentialType {
	name = 'voiceAiApi';

	displayName = 'Voice AI API';

	documentationUrl =
		'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/credentials.md';

	icon = VOICE_AI_ICON;

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

	authenticate = voiceAiAuthenticate(false);

	test = voiceAiCredentialTest;
}
