import type { INode } from 'n8n-workflow';

/**
 * The Voice AI node's Authentication parameter: each value names the one credential type the node then
 * uses (n8n's rule: one credential at a time). The trigger has no such parameter and uses Voice AI API.
 */
export const AUTHENTICATION = {
	apiKey: 'voiceAiApi',
	apiKeyAndSipLogin: 'voiceAiWithSipLoginApi',
} as const;

export type VoiceAiAuthentication = keyof typeof AUTHENTICATION;
export type VoiceAiCredentialType = (typeof AUTHENTICATION)[VoiceAiAuthentication];

/**
 * The Authentication the node is set to. Read from the node rather than as a parameter: the trigger and
 * list searches have no item to evaluate it for, and its options take no expression.
 */
export function authenticationOf(node: INode): VoiceAiAuthentication {
	return node.parameters.authentication === 'apiKeyAndSipLogin' ? 'apiKeyAndSipLogin' : 'apiKey';
}

export function credentialTypeOf(node: INode): VoiceAiCredentialType {
	return AUTHENTICATION[authenticationOf(node)];
}
