import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	isPlainObject,
	listIn,
	type VoiceAiContext,
	type VoiceAiCredential,
	voiceAiApiRequest,
	voiceAiCredential,
} from '../transport';

/**
 * The organization's agents (GET /callback/standardCampaign), for the editor's pickers and to tell
 * organizations apart (accountOwnership): one retry, short waits, no minute-long rate-limit pause.
 * Undefined when the answer is not a list (see `agentsIn`).
 */
export async function requestAgents(
	this: VoiceAiContext,
	policy: { itemIndex?: number; credential?: VoiceAiCredential } = {},
): Promise<IDataObject[] | undefined> {
	const retry = { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 15_000 };
	const path = '/callback/standardCampaign';
	return agentsIn(
		await voiceAiApiRequest.call(this, 'GET', path, undefined, {}, { retry, ...policy }),
	);
}

/** The spec does not show the answer's shape: a list as `listIn` reads it, entries that are not objects skipped. */
export function agentsIn(answer: unknown): IDataObject[] | undefined {
	return listIn(answer)?.filter(isPlainObject);
}

const text = (value: unknown) =>
	typeof value === 'string' || typeof value === 'number' ? String(value) : '';

/** The agents as id, name and phone number (each '' when missing), and the filter lower-cased. */
async function agentList(this: ILoadOptionsFunctions, filter?: string) {
	const credential = await voiceAiCredential.call(this);
	const agents = await requestAgents.call(this, { credential });
	if (!agents) {
		throw new NodeOperationError(
			this.getNode(),
			'Voice AI answered the agent list with something that is not a list',
			{
				description: `Check that the base URL in the Voice AI credential (${credential.origin}) points at the Voice AI API.`,
			},
		);
	}
	const list = agents.map(({ id, agentName, phoneNumber }) => ({
		id: text(id),
		name: text(agentName),
		phone: text(phoneNumber),
	}));
	return { list, wanted: (filter ?? '').trim().toLowerCase() };
}

/**
 * For a resource locator: "agentName (phoneNumber)", valued by agent id, sorted by name; the filter
 * matches agentName, case-insensitive. The spec shows no paging, so every match comes in one page.
 */
export async function searchAgents(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const { list, wanted } = await agentList.call(this, filter);
	const results = list
		.filter(({ id, name }) => id !== '' && name.toLowerCase().includes(wanted))
		.map(({ id, name, phone }) => ({
			name: phone ? `${name || id} (${phone})` : name || id,
			value: id,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}

/**
 * For a resource locator: the distinct numbers of the agents (the only list the spec shows that carries
 * phone numbers), as "+14155550101 (Reception)"; the filter matches the number or an agent's name.
 */
export async function searchPhoneNumbers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const { list, wanted } = await agentList.call(this, filter);
	const byNumber = new Map<string, string[]>();
	for (const { name, phone } of list) {
		if (phone) byNumber.set(phone, [...(byNumber.get(phone) ?? []), ...(name ? [name] : [])]);
	}
	const results = [...byNumber]
		.filter(([number, names]) =>
			[number, ...names].some((shown) => shown.toLowerCase().includes(wanted)),
		)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([number, names]) => ({
			name: names.length ? `${number} (${names.join(', ')})` : number,
			value: number,
		}));
	return { results };
}
