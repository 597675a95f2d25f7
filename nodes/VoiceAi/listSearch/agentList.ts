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
 * The agent list answers the editor's pickers and tells organizations apart (accountOwnership): one
 * retry, short waits, no minute-long rate-limit pause.
 */
const AGENT_LIST_RETRY = { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 15_000 };

/**
 * The organization's agents (GET /callback/standardCampaign). The spec does not show the answer's
 * shape: a bare array and a list wrapped in an object (`{"data":[…]}`) are both read, entries that are
 * not objects are skipped; undefined when the answer is not a list.
 */
export async function requestAgents(
	this: VoiceAiContext,
	policy: { itemIndex?: number; credential?: VoiceAiCredential } = {},
): Promise<IDataObject[] | undefined> {
	return agentsIn(
		await voiceAiApiRequest.call(
			this,
			'GET',
			'/callback/standardCampaign',
			undefined,
			{},
			{ retry: AGENT_LIST_RETRY, ...policy },
		),
	);
}

/** The agents in an answer of GET /callback/standardCampaign (see `requestAgents`). */
export function agentsIn(answer: unknown): IDataObject[] | undefined {
	return listIn(answer)?.filter(isPlainObject);
}

interface AgentEntry {
	id: string;
	agentName: string;
	phoneNumber: string;
}

function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** The organization's agents for the editor's lists (see `requestAgents`). */
export async function agentList(this: ILoadOptionsFunctions): Promise<AgentEntry[]> {
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
	return agents.map((agent) => ({
		id: text(agent.id),
		agentName: text(agent.agentName),
		phoneNumber: text(agent.phoneNumber),
	}));
}

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
