import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { agentList } from './agentList';

/**
 * The organization's agents for a resource locator: shown as "agentName (phoneNumber)", valued by agent
 * id, sorted by name. The filter matches agentName, case-insensitive. The spec shows no paging, so every
 * match comes in one page.
 */
export async function searchAgents(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const wanted = (filter ?? '').trim().toLowerCase();
	const results = (await agentList.call(this))
		.filter((agent) => agent.id !== '')
		.filter((agent) => wanted === '' || agent.agentName.toLowerCase().includes(wanted))
		.map((agent) => {
			const name = agent.agentName || agent.id;
			return { name: agent.phoneNumber ? `${name} (${agent.phoneNumber})` : name, value: agent.id };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
