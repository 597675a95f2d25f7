import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The login of a SIP trunk (user name and password), kept encrypted by n8n instead of in the workflow.
 * Voice AI SIP Update and Compare put it into the directions the node says; it is never a request header,
 * so it has no authenticate block. The spec shows no endpoint that checks a SIP login without changing
 * a number's configuration: the Voice AI node's `sipTrunkLoginTest` only checks that both fields are set.
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
			displayName: 'SIP Username',
			name: 'sipUsername',
			type: 'string',
			default: '',
			required: true,
			description: 'User name of the SIP trunk login, sent as sip_username',
		},
		{
			displayName: 'SIP Password',
			name: 'sipPassword',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Password of the SIP trunk login, sent as sip_password. n8n stores it encrypted; workflows hold only a reference to this credential.',
		},
	];
}
