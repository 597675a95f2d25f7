import type { IAllExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { API_KEY_PATTERN, BASE_URL_RULE, parseBaseUrl } from '../../../credentials/voiceAiBaseUrl';
import { Secrets } from './secrets';

export type VoiceAiContext = IAllExecuteFunctions;

export const AUTHENTICATION = {
	apiKey: 'voiceAiApi',
	apiKeyAndSipLogin: 'voiceAiWithSipLoginApi',
} as const;

/** Not a parameter read: the trigger and list searches have no item to evaluate it for. */
export const authenticationOf = (node: INode): keyof typeof AUTHENTICATION =>
	node.parameters.authentication === 'apiKeyAndSipLogin' ? 'apiKeyAndSipLogin' : 'apiKey';
export const credentialTypeOf = (node: INode) => AUTHENTICATION[authenticationOf(node)];

/** Errors of an unusable credential stop the node whatever Continue On Fail says. */
const unusableCredentialErrors = new WeakSet<Error>();
export const isUnusableCredentialError = (error: unknown) =>
	unusableCredentialErrors.has(error as Error);

export async function voiceAiCredential(
	this: VoiceAiContext,
	itemIndex?: number,
	secrets = new Secrets(),
) {
	const node = this.getNode();
	const type = credentialTypeOf(node);
	const credentials = await this.getCredentials(type, itemIndex);
	const unusable = (message: string, description: string) => {
		const error = new NodeOperationError(node, message, { itemIndex, description });
		unusableCredentialErrors.add(error);
		return error;
	};
	// Before the check: the refusal of a Base URL with user info must not show its password.
	if (typeof credentials.baseUrl === 'string') secrets.addFromUrl(credentials.baseUrl.trim());
	const baseUrl = parseBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok)
		throw unusable(
			`The Voice AI credential has no valid base URL: the Base URL ${baseUrl.problem}`,
			`Open the Voice AI credential. ${BASE_URL_RULE} Nothing was sent.`,
		);
	if (!API_KEY_PATTERN.test(String(credentials.apiKey ?? '').trim()))
		throw unusable(
			'The API key in the Voice AI credential does not start with ct_',
			'Voice AI keys start with ct_. Paste the whole key from the dashboard (Integrations, API access) into the credential.',
		);
	// Held only now: hiding a value that is not a key (a space, "ct_") would cut the refusal's words apart.
	secrets.add(credentials.apiKey);
	return {
		baseUrl: baseUrl.url.base,
		origin: baseUrl.url.origin,
		/** Handed to every request, so n8n does not decrypt it again. */
		decrypted: { id: node.credentials?.[type]?.id ?? '', name: type, type, data: credentials },
		secrets,
	};
}
export type VoiceAiCredential = Awaited<ReturnType<typeof voiceAiCredential>>;
