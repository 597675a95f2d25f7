import { createHash } from 'crypto';
import type { IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { parseBaseUrl } from '../../../credentials/voiceAiBaseUrl';
import { agentsIn, requestAgents } from '../listSearch/agentList';
import { credentialTypeOf } from '../transport';
import { type KeyIdentity, needsAgents } from './state';

type Context = IExecuteFunctions | IHookFunctions | IWebhookFunctions;

export function accountKey(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex');
}

/** The base URL as requests use it (origin and path, so `https://API.example.com/` is `https://api.example.com`). */
export function normalisedBaseUrl(value: unknown): string {
	const parsed = parseBaseUrl(value);
	if (parsed.ok) return parsed.url.base;
	return String(value ?? '').trim();
}

/**
 * Sends GET /callback/standardCampaign the caller's way: an operation passes its item's request, so
 * the read keeps the node's concurrency and retry settings.
 */
export type ReadAgentList = () => Promise<unknown>;

/** The ids of the agents the key lists; undefined when the answer is not a list. */
async function agentIdsOf(
	this: Context,
	itemIndex?: number,
	read?: ReadAgentList,
): Promise<string[] | undefined> {
	const agents = read ? agentsIn(await read()) : await requestAgents.call(this, { itemIndex });
	return agents?.flatMap((agent) =>
		typeof agent.id === 'string' || typeof agent.id === 'number' ? [String(agent.id)] : [],
	);
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
	read?: ReadAgentList,
): Promise<{ apiKey: string; identity: KeyIdentity }> {
	const node = this.getNode();
	const type = credentialTypeOf(node);
	const credentials = await this.getCredentials(type, itemIndex);
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = normalisedBaseUrl(credentials.baseUrl);
	const identity: KeyIdentity = {
		baseUrl,
		keyHash: accountKey(baseUrl, apiKey),
		credentialId: node.credentials?.[type]?.id ?? undefined,
	};
	if (agents === 'always' || (agents === 'ifNeeded' && needsAgents(identity))) {
		identity.agentIds = await agentIdsOf.call(this, itemIndex, read);
	}
	return { apiKey, identity };
}
