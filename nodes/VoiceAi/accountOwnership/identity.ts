import { createHash } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { parseBaseUrl } from '../../../credentials/voiceAiBaseUrl';
import { listIn } from '../actions/types';
import { voiceAiApiRequest } from '../transport';
import { type KeyIdentity, needsAgents } from './state';

type Context = IExecuteFunctions | IHookFunctions | IWebhookFunctions;

/** The agent list is read to tell organizations apart: one retry, short waits. */
const AGENT_LIST_RETRY = { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 15_000 };

export function accountKey(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex');
}

/** The base URL as requests use it (origin and path, so `https://API.example.com/` is `https://api.example.com`). */
export function normalisedBaseUrl(value: unknown): string {
	const parsed = parseBaseUrl(value);
	if (parsed.ok) return `${parsed.url.origin}${parsed.url.pathPrefix}`;
	return String(value ?? '').trim();
}

/** The ids of the agents the key lists (GET /callback/standardCampaign); undefined when not a list. */
async function agentIdsOf(this: Context, itemIndex?: number): Promise<string[] | undefined> {
	const answer = listIn(
		await voiceAiApiRequest.call(
			this,
			'GET',
			'/callback/standardCampaign',
			undefined,
			{},
			{ retry: AGENT_LIST_RETRY, itemIndex },
		),
	);
	if (answer === undefined) return undefined;
	return answer.flatMap((agent) => {
		const id = agent !== null && typeof agent === 'object' ? (agent as IDataObject).id : undefined;
		return typeof id === 'string' || typeof id === 'number' ? [String(id)] : [];
	});
}

/**
 * The credential's key as the ownership state knows keys. `agents`: 'always' reads the key's agent
 * list (a publish records it, to tell later keys apart); 'ifNeeded' only when another key on the
 * same base URL cannot be told apart without it; 'never' reads none.
 */
export async function identityOf(
	this: Context,
	agents: 'always' | 'ifNeeded' | 'never',
	itemIndex?: number,
): Promise<{ apiKey: string; identity: KeyIdentity }> {
	const credentials = await this.getCredentials('voiceAiApi', itemIndex);
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = normalisedBaseUrl(credentials.baseUrl);
	const identity: KeyIdentity = {
		baseUrl,
		keyHash: accountKey(baseUrl, apiKey),
		credentialId: this.getNode().credentials?.voiceAiApi?.id ?? undefined,
	};
	if (agents === 'always' || (agents === 'ifNeeded' && needsAgents(identity))) {
		identity.agentIds = await agentIdsOf.call(this, itemIndex);
	}
	return { apiKey, identity };
}
