import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { VOICE_AI_ICON, authenticateKey, credentialTest } from './VoiceAiApi.credentials';

export const SIP_LOGIN_PROPERTIES: INodeProperties[] = [
	{
		displayName: 'SIP Username',
		name: 'sipUsername',
		type: 'string',
		default: '',
		description: 'User name of the SIP trunk login, sent as sip_username',
	},
	{
		displayName: 'SIP Password',
		name: 'sipPassword',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'Password of the SIP trunk login, sent as sip_password. n8n stores it encrypted; workflows hold only a reference to this credential.',
	},
];

/**
 * Voice AI API plus a SIP trunk login (a node takes one credential); the login is never a header.
 */
export class VoiceAiWithSipLoginApi implements ICredentialType {
	name = 'voiceAiWithSipLoginApi';
	displayName = 'Voice AI with SIP Trunk Login API';
	extends = ['voiceAiApi'];
	documentationUrl =
		'https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/sip-credentials.md';
	icon = VOICE_AI_ICON;
	properties = SIP_LOGIN_PROPERTIES.map((field) => ({ ...field, required: true }));
	authenticate = authenticateKey(true);
	test = credentialTest;
}
