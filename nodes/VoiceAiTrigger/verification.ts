import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	apiKeyOf,
	hashToken,
	productionToken,
	type Registration,
	TOKEN_PARAMETER,
	tokenMatches,
} from '../VoiceAi/accountOwnership/registration';

/**
 * Production accepts the token it registered (static data) and the one it would register now:
 * after an API key rotation, a test listen restores the URL with the new key's token.
 */
export async function hasValidToken(
	this: IWebhookFunctions,
	record: Registration | undefined,
): Promise<boolean> {
	const given = (this.getQueryData() as IDataObject)[TOKEN_PARAMETER];
	if (typeof given !== 'string' || given === '') return false;
	if (record !== undefined && tokenMatches(given, record.tokenHash)) return true;
	if (this.getMode() === 'manual') return false;
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	return tokenMatches(given, hashToken(productionToken(await apiKeyOf.call(this), webhookUrl)));
}
