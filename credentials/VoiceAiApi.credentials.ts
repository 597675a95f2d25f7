import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { API_CHECK_PATH, API_KEY_PATTERN, BASE_URL_RULE, parseBaseUrl } from './urlRules';

const KEY_REFUSED =
	'The API key was refused: it is missing, malformed (keys start with ct_) or revoked. Paste a current key from the Voice AI dashboard (Integrations, API access).';

export const VOICE_AI_ICON = {
	light: 'file:../nodes/VoiceAi/voiceai.svg',
	dark: 'file:../nodes/VoiceAi/voiceai.dark.svg',
} as const;

/**
 * Test requests given the key: one seen again got a 401 (n8n resends only then; 1.x ignores rules).
 */
const keyedTests = new WeakSet<object>();

// Every request with the key (nodes, test, HTTP Request node): one header, only within the base URL
// as the URL parser reads it, no redirect; a refusal never shows path or query.
export function authenticateKey(sipLogin: boolean): ICredentialType['authenticate'] {
	return async (credentials, requestOptions) => {
		// n8n hands the test's request here too. No read checks a SIP login: the test sees it set.
		const isTest = requestOptions.url === API_CHECK_PATH;
		if (sipLogin && isTest) {
			const { sipUsername: user, sipPassword: password } = credentials;
			const missing = (field: string) =>
				new Error(`Fill in the ${field}: SIP Update and Compare need both. Nothing was sent.`);
			if (typeof user !== 'string' || !user.trim()) throw missing('SIP Username');
			if (typeof password !== 'string' || !password) throw missing('SIP Password');
		}
		const baseUrl = parseBaseUrl(credentials.baseUrl);
		if (!baseUrl.ok)
			throw new Error(`The Base URL ${baseUrl.problem}. ${BASE_URL_RULE} Nothing was sent.`);
		const { origin, base } = baseUrl.url;
		if (isTest) {
			if (keyedTests.has(requestOptions)) throw new Error(KEY_REFUSED);
			keyedTests.add(requestOptions);
			requestOptions.baseURL = base;
		}
		const outside = (why: string) =>
			new Error(
				`The Voice AI API credential sends its key only to its base URL, ${base}: this request ${why}, so nothing was sent. Use a URL that starts with the base URL, or another credential for other addresses.`,
			);
		// Joined as axios joins them; the legacy request helper's `uri` stands for `url`.
		const url = String(requestOptions.url ?? (requestOptions as { uri?: unknown }).uri ?? '');
		const baseURL = String(requestOptions.baseURL ?? '');
		const joined =
			baseURL && url && !/^([a-z][a-z\d+\-.]*:)?\/\//i.test(url)
				? `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}`
				: url || baseURL;
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

/** A read that changes nothing. `authenticate` replaces its unreachable (RFC 6761) base URL. */
export const credentialTest: ICredentialTestRequest = {
	request: {
		baseURL: 'https://base-url-not-checked.invalid',
		url: API_CHECK_PATH,
		method: 'GET',
		disableFollowRedirect: true,
	},
	// n8n reports a status without a rule by its status text only ("Found").
	rules: [301, 302, 303, 307, 308, 401, 404].map((value) => ({
		type: 'responseCode',
		properties: {
			value,
			message:
				value === 401
					? KEY_REFUSED
					: value === 404
						? 'The Base URL does not point at the Voice AI API: check it against your account documentation.'
						: `The base URL answered ${value}, a redirect. The key is never sent on to another address, so the test stopped there: enter the address the redirect points to as the base URL, if it is the Voice AI API.`,
		},
	})),
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
	authenticate = authenticateKey(false);
	test = credentialTest;
}
