import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { listIn } from '../actions/types';
import { voiceAiApiRequest, voiceAiCredential } from '../transport';

/** A list in the editor should answer quickly: one retry, short waits, no minute-long rate-limit pause. */
const LIST_RETRY = { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 15_000 };

interface AgentEntry {
	id: string;
	agentName: string;
	phoneNumber: string;
}

function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/**
 * The organization's agents (GET /callback/standardCampaign) for the editor's lists. The spec does not show
 * the answer's shape: a bare array and a list wrapped in an object (`{"data":[…]}`) are both read, entries
 * that are not objects are skipped.
 */
export async function agentList(this: ILoadOptionsFunctions): Promise<AgentEntry[]> {
	const credential = await voiceAiCredential.call(this);
	const answer = listIn(
		await voiceAiApiRequest.call(
			this,
			'GET',
			'/callback/standardCampaign',
			undefined,
			{},
			{ retry: LIST_RETRY, credential },
		),
	);
	if (!answer) {
		throw new NodeOperationError(
			this.getNode(),
			'Voice AI answered the agent list with something that is not a list',
			{
				description: `Check that the base URL in the Voice AI credential (${credential.origin}) points at the Voice AI API.`,
			},
		);
	}
	return answer
		.filter(
			(agent): agent is IDataObject =>
				agent !== null && typeof agent === 'object' && !Array.isArray(agent),
		)
		.map((agent) => ({
			id: text(agent.id),
			agentName: text(agent.agentName),
			phoneNumber: text(agent.phoneNumber),
		}));
}
