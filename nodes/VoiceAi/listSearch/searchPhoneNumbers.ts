import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { agentList } from './agentList';

/**
 * Phone numbers for a resource locator: the distinct numbers of the organization's agents (the only list
 * endpoint the spec shows that carries phone numbers), shown as "+14155550101 (Reception)". The filter
 * matches the number or the agent's name.
 */
export async function searchPhoneNumbers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const wanted = (filter ?? '').trim().toLowerCase();
	const byNumber = new Map<string, string[]>();
	for (const agent of await agentList.call(this)) {
		if (!agent.phoneNumber) continue;
		const names = byNumber.get(agent.phoneNumber) ?? [];
		if (agent.agentName) names.push(agent.agentName);
		byNumber.set(agent.phoneNumber, names);
	}
	const results = [...byNumber]
		.filter(
			([number, names]) =>
				wanted === '' ||
				number.includes(wanted) ||
				names.some((name) => name.toLowerCase().includes(wanted)),
		)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([number, names]) => ({
			name: names.length ? `${number} (${names.join(', ')})` : number,
			value: number,
		}));
	return { results };
}
