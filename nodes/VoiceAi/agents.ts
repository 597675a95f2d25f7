import {
	type VoiceAiContext,
	type VoiceAiCredential,
	listIn,
	voiceAiApiRequest,
} from './transport/request';
import { isPlainObject } from './transport/secrets';

export const agentsIn = (answer: unknown) => listIn(answer)?.filter(isPlainObject);

type Policy = { itemIndex?: number; credential?: VoiceAiCredential };
/**
 * The agents, for pickers and ownership: one retry, waits of at most 2 s; undefined if not a list.
 */
export async function requestAgents(this: VoiceAiContext, policy: Policy = {}) {
	const path = '/callback/standardCampaign';
	const options = { retry: { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 15_000 }, ...policy };
	return agentsIn(await voiceAiApiRequest.call(this, 'GET', path, undefined, {}, options));
}
