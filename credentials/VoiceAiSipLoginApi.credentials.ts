import type { ICredentialType, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { voiceAiCredentialTest } from './VoiceAiApi.credentials';

const REPLACED =
	'The Voice AI node no longer reads this credential type: a node uses one credential at a time. Create a "Voice AI with SIP Trunk Login API" credential (base URL, API key and this trunk login), then in the Voice AI node set Authentication to "API Key and SIP Trunk Login" and choose it.';

/**
 * The SIP trunk login as a credential of its own, from before the Voice AI node used one credential at a
 * time. Still registered so that saved credentials of this type load and can be read or deleted; no node
 * offers it. Its test sends nothing and says what replaces it.
 */
export class VoiceAiSipLoginApi implements ICredentialType {
	name = 'voiceAiSipLoginApi';

	displayName = 'Voice AI SIP Trunk Login API';

	documentationUrl =
		'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/sip-credentials.md';

	icon = {
		light: 'file:../nodes/VoiceAi/voiceai.svg',
		dark: 'file:../nodes/VoiceAi/voiceai.dark.svg',
	} as const;

	properties: INodeProperties[] = [
		{
			displayName: REPLACED,
			name: 'replacedNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'SIP Username',
			name: 'sipUsername',
			type: 'string',
			default: '',
			description: 'User name of the SIP trunk login',
		},
		{
			displayName: 'SIP Password',
			name: 'sipPassword',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Password of the SIP trunk login. n8n stores it encrypted.',
		},
	];

	// A plain error: n8n shows its message as it is, on 1.x and 2.x; nothing is sent.
	async authenticate(): Promise<IHttpRequestOptions> {
		throw new Error(REPLACED);
	}

	test = voiceAiCredentialTest;
}
