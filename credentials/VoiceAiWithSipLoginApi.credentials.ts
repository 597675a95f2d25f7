import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	authenticateVoiceAiRequest,
	isCredentialTestRequest,
	voiceAiCredentialTest,
} from './VoiceAiApi.credentials';

/** What the SIP Username and SIP Password fields are called, in the credential and in messages. */
export const SIP_LOGIN_FIELDS = { sipUsername: 'SIP Username', sipPassword: 'SIP Password' };

/**
 * The Voice AI API credential (base URL, API key, header: through `extends`) plus the login of a SIP
 * trunk, kept encrypted by n8n instead of in the workflow. One credential, so the Voice AI node uses one
 * credential at a time: SIP Update and Compare put the login into the directions the node lists. The key
 * authenticates requests as in Voice AI API; the login is never a header.
 */
export class VoiceAiWithSipLoginApi implements ICredentialType {
	name = 'voiceAiWithSipLoginApi';

	displayName = 'Voice AI with SIP Trunk Login API';

	extends = ['voiceAiApi'];

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

	/**
	 * The key as Voice AI API sends it. The test (the same read as Voice AI API's) first checks that both
	 * login fields are set: the spec shows no request that checks a SIP login without changing a number.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		if (isCredentialTestRequest(requestOptions)) {
			const username = typeof credentials.sipUsername === 'string' ? credentials.sipUsername : '';
			const password = typeof credentials.sipPassword === 'string' ? credentials.sipPassword : '';
			const empty = !username.trim() ? 'sipUsername' : !password ? 'sipPassword' : undefined;
			if (empty)
				throw new Error(
					`Fill in the ${SIP_LOGIN_FIELDS[empty]}: SIP Update and Compare need both. Nothing was sent.`,
				);
		}
		return await authenticateVoiceAiRequest(credentials, requestOptions);
	}

	test = voiceAiCredentialTest;
}
