import { type ILoadOptionsFunctions, NodeOperationError } from 'n8n-workflow';

import { requestAgents } from '../agents';
import { voiceAiCredential } from '../transport/request';

const text = (value: unknown) =>
	typeof value === 'string' || typeof value === 'number' ? String(value) : '';

async function agentList(this: ILoadOptionsFunctions, filter = '') {
	const credential = await voiceAiCredential.call(this);
	const agents = await requestAgents.call(this, { credential });
	const notList = 'Voice AI answered the agent list with something that is not a list';
	const description = `Check that the base URL in the Voice AI credential (${credential.origin}) points at the Voice AI API.`;
	if (!agents) throw new NodeOperationError(this.getNode(), notList, { description });
	const wanted = filter.trim().toLowerCase();
	const matches = (shown: string) => shown.toLowerCase().includes(wanted);
	const list = agents.map((a) => ({
		id: text(a.id),
		name: text(a.agentName),
		phone: text(a.phoneNumber),
	}));
	return { list, matches };
}

/**
 * "agentName (phoneNumber)", valued by agent id, sorted; the filter matches agentName. No paging.
 */
export async function searchAgents(this: ILoadOptionsFunctions, filter?: string) {
	const { list, matches } = await agentList.call(this, filter);
	const results = list
		.filter(({ id, name }) => id !== '' && matches(name))
		.map(({ id, name, phone }) => ({ name: `${name || id}${phone && ` (${phone})`}`, value: id }))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}

/** The agents' distinct numbers (no other list shows numbers) as "+14155550101 (Reception)". */
export async function searchPhoneNumbers(this: ILoadOptionsFunctions, filter?: string) {
	const { list, matches } = await agentList.call(this, filter);
	const byNumber = new Map<string, string[]>();
	for (const { name, phone } of list)
		if (phone) byNumber.set(phone, [...(byNumber.get(phone) ?? []), ...(name ? [name] : [])]);
	const results = [...byNumber]
		.filter(([number, names]) => [number, ...names].some(matches))
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([number, names]) => ({
			name: names.length ? `${number} (${names.join(', ')})` : number,
			value: number,
		}));
	return { results };
}
