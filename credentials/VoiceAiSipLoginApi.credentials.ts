import type { ICredentialType, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { VOICE_AI_ICON, credentialTest } from './VoiceAiApi.credentials';
import { SIP_LOGIN_PROPERTIES } from './VoiceAiWithSipLoginApi.credentials';

const REPLACED =
	'The Voice AI node no longer reads this credential type: a node uses one credential at a time. Create a "Voice AI with SIP Trunk Login API" credential (base URL, API key and this trunk login), then in the Voice AI node set Authentication to "API Key and SIP Trunk Login" and choose it.';

/**
 * Retired: loads so saved ones can be read or deleted; no node offers it; its test sends nothing.
 */
export class VoiceAiSipLoginApi implements ICredentialType {
	name = 'voiceAiSipLoginApi';
	displayName = 'Voice AI SIP Trunk Login API';
	documentationUrl =
		'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/sip-credentials.md';
	icon = VOICE_AI_ICON;
	properties: INodeProperties[] = [
		{ displayName: REPLACED, name: 'replacedNotice', type: 'notice', default: '' },
		...SIP_LOGIN_PROPERTIES,
	];
	async authenticate(): Promise<IHttpRequestOptions> {
		throw new Error(REPLACED);
	}
	test = credentialTest;
}
