import type { Router } from 'express';

import { orgOf, strictRouter } from '../context';
import { conflict } from '../errors';
import { newId } from '../keys';
import { jsonBody } from '../middleware/body';
import { sendList, shapesOf } from '../shapes';
import type { Store } from '../store';
import type { Agent, Org } from '../types';
import { e164, type JsonObject, objectBody, oneOf, required, text, VOICES } from '../validate';

const AGENT_FIELDS = ['phoneNumber', 'agentName', 'task', 'selectedVoice'] as const;

export type AgentInput = Pick<Agent, (typeof AGENT_FIELDS)[number]>;

/** All four fields are required; agentName is unique per organization, compared case-insensitively. */
export function parseAgent(body: JsonObject, prefix = ''): AgentInput {
	const field = (name: string) => prefix + name;
	return {
		phoneNumber: e164(required(body, 'phoneNumber', prefix), field('phoneNumber')),
		agentName: text(required(body, 'agentName', prefix), field('agentName'), { max: 100 }).trim(),
		task: text(required(body, 'task', prefix), field('task'), { max: 10_000 }),
		selectedVoice: oneOf(required(body, 'selectedVoice', prefix), VOICES, field('selectedVoice')),
	};
}

export function addAgent(
	store: Store,
	org: Org,
	input: AgentInput,
	id = newId('agent', 12),
): Agent {
	const wanted = input.agentName.toLowerCase();
	if (org.agents.some((agent) => agent.agentName.toLowerCase() === wanted)) {
		throw conflict(`an agent named "${input.agentName}" already exists`, 'agentName');
	}
	if (store.agentOwner.has(id)) throw conflict(`agent id ${id} already exists`, 'id');
	const agent: Agent = { id, ...input, created_at: new Date().toISOString() };
	org.agents.push(agent);
	store.agentOwner.set(id, org.id);
	return agent;
}

export function agentRoutes(store: Store): Router {
	const router = strictRouter();
	router.get('/callback/standardCampaign', (_req, res) => {
		sendList(res, orgOf(res).agents, 'agents');
	});
	router.post('/callback/standardCampaign', ...jsonBody(store), (req, res) => {
		const body = objectBody(req.body, AGENT_FIELDS);
		const agent = addAgent(store, orgOf(res), parseAgent(body));
		const shapes = shapesOf(res);
		if (shapes === 'wrapped') res.status(201).json({ data: agent });
		else if (shapes === 'minimal') res.status(200).json({ message: 'Agent created', id: agent.id });
		else res.status(201).json(agent);
	});
	return router;
}
