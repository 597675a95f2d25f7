import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { voiceAiApiRequest } from '../transport';

/** A list in the editor should answer quickly: one retry, short waits, no minute-long rate-limit pause. */
const LIST_RETRY = { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 15_000 };

function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/**
 * The organization's agents (GET /callback/standardCampaign) for a resource locator: shown as
 * "agentName (phoneNumber)", valued by agent id, sorted by name. The filter matches agentName,
 * case-insensitive. The service has no paging, so every match comes in one page.
 */
export async function searchAgents(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const answer = await voiceAiApiRequest.call(this, 'GET', '/callback/standardCampaign', undefined, {}, { retry: LIST_RETRY });
	if (!Array.isArray(answer)) {
		throw new NodeOperationError(this.getNode(), 'Voice AI answered the agent list with something that is not a list', {
			description: 'Check that the base URL in the Voice AI credential points at the Voice AI API.',
		});
	}
	const wanted = (filter ?? '').trim().toLowerCase();
	const results = (answer as IDataObject[])
		.filter((agent) => agent !== null && typeof agent === 'object' && text(agent.id) !== '')
		.filter((agent) => wanted === '' || text(agent.agentName).toLowerCase().includes(wanted))
		.map((agent) => {
			const name = text(agent.agentName) || text(agent.id);
			const phone = text(agent.phoneNumber);
			return { name: phone ? `${name} (${phone})` : name, value: text(agent.id) };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
