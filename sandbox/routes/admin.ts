import type { NextFunction, Request, Response, Router } from 'express';
import { timingSafeEqual } from 'node:crypto';

import { strictRouter } from '../context';
import { completeConversation } from '../conversations';
import type { Deliverer } from '../delivery';
import { ApiError, badField, conflict, errorHandler, notFound, unauthorized } from '../errors';
import { parseJsonBody } from '../middleware/body';
import { parseSeedInput } from '../seedInput';
import type { Store } from '../store';
import { FAULT_KINDS, type Fault, type Org } from '../types';
import { newId } from '../keys';
import { has, httpUrl, objectBody, oneOf, required, text } from '../validate';
import { addAgent } from './agents';
import { listNames } from './contacts';
import { addChatbot, findChatbot } from './chatbot';
import { sipShapeAdminRoutes } from './sip';
import { addSip } from './sip';
import { ANSWER_SHAPES, isAnswerShapes } from '../shapes';

export interface AdminDeps {
	store: Store;
	deliverer: Deliverer;
	adminToken: string;
	log?: (line: string) => void;
}

function adminAuth(token: string) {
	const expected = Buffer.from(token);
	return (req: Request, _res: Response, next: NextFunction) => {
		const given = Buffer.from(String(req.headers['x-sandbox-admin'] ?? ''));
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
			throw unauthorized('missing or wrong X-Sandbox-Admin token');
		}
		next();
	};
}

function nonNegativeInt(value: unknown, field: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 600_000) {
		throw badField(field, 'must be a whole number from 0 to 600000');
	}
	return value;
}

function answerShapes(value: unknown) {
	if (!isAnswerShapes(value))
		throw badField('shapes', `must be one of ${ANSWER_SHAPES.join(', ')}`);
	return value;
}

const keyView = (k: {
	id: string;
	name: string;
	prefix: string;
	revoked: boolean;
	exposed: boolean;
	created_at: string;
	last_used_at: string | null;
}) => ({
	id: k.id,
	name: k.name,
	prefix: k.prefix,
	revoked: k.revoked,
	exposed: k.exposed,
	created_at: k.created_at,
	last_used_at: k.last_used_at,
});

/** Only for demos, tests and benchmarks; every call needs the X-Sandbox-Admin token. */
export function adminRoutes({ store, deliverer, adminToken, log }: AdminDeps): Router {
	const router = strictRouter();
	router.use(adminAuth(adminToken));
	router.use(parseJsonBody);

	const org = (req: Request): Org => {
		const found = store.orgs.get(req.params.org as string);
		if (!found) throw notFound('organization');
		return found;
	};

	router.get('/orgs', (_req, res) => {
		res.json([...store.orgs.values()].map(({ id, name }) => ({ id, name })));
	});
	router.post('/orgs', (req, res) => {
		const body = objectBody(req.body, ['name', 'id']);
		const name = text(required(body, 'name'), 'name', { max: 100 });
		const id = has(body, 'id') ? text(body.id, 'id', { max: 64 }) : undefined;
		if (id !== undefined && !/^org_[A-Za-z0-9_]+$/.test(id))
			throw badField('id', 'must match org_[A-Za-z0-9_]+');
		if (id !== undefined && store.orgs.has(id))
			throw conflict(`organization ${id} already exists`, 'id');
		const created = store.createOrg(name, id);
		res.status(201).json({ id: created.id, name: created.name });
	});

	router.post('/orgs/:org/keys', (req, res) => {
		const target = org(req);
		const body = objectBody(req.body, ['name']);
		const name = has(body, 'name') ? text(body.name, 'name', { max: 100 }) : 'sandbox';
		const { record, apiKey } = store.createKey(target.id, name);
		res.status(201).json({ id: record.id, apiKey, prefix: record.prefix, name: record.name });
	});
	router.get('/orgs/:org/keys', (req, res) => {
		const target = org(req);
		res.json([...store.keys.values()].filter((k) => k.orgId === target.id).map(keyView));
	});
	router.post('/keys/:keyId/revoke', (req, res) => {
		const record = store.keys.get(req.params.keyId as string);
		if (!record) throw notFound('key');
		record.revoked = true;
		res.json(keyView(record));
	});

	router.get('/orgs/:org/state', (req, res) => {
		const target = org(req);
		res.json({
			id: target.id,
			name: target.name,
			chatbots: [...target.chatbots.values()],
			agents: target.agents,
			contactLists: listNames(target),
			contacts: target.contacts,
			sip: [...target.sip.values()],
			trustProducts: [...target.trustProducts].flatMap(([carrier, list]) =>
				list.map((p) => ({ carrier, ...p })),
			),
			webhook: target.webhook,
			uploads: target.uploads,
		});
	});

	router.post('/orgs/:org/seed', (req, res) => {
		const target = org(req);
		const input = parseSeedInput(req.body);
		// Every conflict is found before anything is added, so a refused seed changes nothing.
		const ids = input.chatbots.map((c) => c.id);
		const numbers = input.sip.map((s) => s.phone_number);
		const names = input.agents.map((a) => a.input.agentName.toLowerCase());
		ids.forEach((id, i) => {
			if (store.chatbotOwner.has(id) || ids.indexOf(id) !== i)
				throw conflict(`chatbot id ${id} already exists`, `chatbots[${i}].id`);
		});
		numbers.forEach((n, i) => {
			if (store.numberOwner.has(n) || numbers.indexOf(n) !== i) {
				throw conflict(
					`phone number ${n} already has a SIP configuration`,
					`sip[${i}].phone_number`,
				);
			}
		});
		input.agents.forEach((a, i) => {
			const name = names[i];
			if (
				target.agents.some((x) => x.agentName.toLowerCase() === name) ||
				names.indexOf(name) !== i
			) {
				throw conflict(
					`an agent named "${a.input.agentName}" already exists`,
					`agents[${i}].agentName`,
				);
			}
			if (a.id && store.agentOwner.has(a.id))
				throw conflict(`agent id ${a.id} already exists`, `agents[${i}].id`);
		});
		for (const chatbot of input.chatbots) addChatbot(store, target, chatbot);
		const agents = input.agents.map((a) => addAgent(store, target, a.input, a.id));
		for (const config of input.sip) addSip(store, target, config);
		target.contacts.push(...input.contacts);
		for (const { carrier, product } of input.trustProducts) {
			target.trustProducts.set(carrier, [...(target.trustProducts.get(carrier) ?? []), product]);
		}
		res.status(201).json({
			chatbots: input.chatbots,
			agents,
			sip: input.sip,
			contacts: input.contacts,
			trustProducts: input.trustProducts.map(({ carrier, product }) => ({ carrier, ...product })),
		});
	});

	router.put('/orgs/:org/chatbots/:id/webhook-url', (req, res) => {
		const target = org(req);
		const chatbot = findChatbot(target, req.params.id as string);
		const body = objectBody(req.body, ['webhook_url']);
		if (!has(body, 'webhook_url')) throw badField('webhook_url', 'is required (null clears it)');
		chatbot.webhook_url =
			body.webhook_url === null ? null : httpUrl(body.webhook_url, 'webhook_url');
		res.json(chatbot);
	});

	router.get('/orgs/:org/carrier-log', (req, res) => {
		res.json(org(req).carrierLog);
	});

	router.post('/orgs/:org/conversations', (req, res) => {
		const result = completeConversation(deliverer, org(req), req.body);
		res.status(201).json(result);
	});
	router.get('/deliveries', (req, res) => {
		const { org: orgId, conversationId } = req.query as Record<string, string | undefined>;
		res.json(
			store.deliveries.filter(
				(d) =>
					(orgId === undefined || d.orgId === orgId) &&
					(conversationId === undefined || d.conversationId === conversationId),
			),
		);
	});
	router.get('/deliveries/:id', (req, res) => {
		const delivery = store.deliveries.find((d) => d.id === req.params.id);
		if (!delivery) throw notFound('delivery');
		res.json(delivery);
	});

	router.get('/requests', (req, res) => {
		const orgId = req.query.org as string | undefined;
		res.json(store.requestLog.filter((entry) => orgId === undefined || entry.orgId === orgId));
	});
	router.delete('/requests', (_req, res) => {
		const cleared = store.requestLog.length;
		store.requestLog.length = 0;
		res.json({ cleared });
	});

	router.get('/config', (_req, res) => {
		res.json(store.config);
	});
	router.put('/config', (req, res) => {
		const body = objectBody(req.body, ['latencyMs', 'rateLimit', 'shapes']);
		if (has(body, 'latencyMs'))
			store.config.latencyMs = nonNegativeInt(body.latencyMs, 'latencyMs');
		if (has(body, 'rateLimit'))
			store.config.rateLimit = nonNegativeInt(body.rateLimit, 'rateLimit');
		if (has(body, 'shapes')) store.config.shapes = answerShapes(body.shapes);
		res.json(store.config);
	});

	sipShapeAdminRoutes(router, org);
	// One organization's answer shapes; null follows the sandbox's setting (PUT /config).
	router.get('/orgs/:org/shapes', (req, res) => {
		const target = org(req);
		res.json({ shapes: target.shapes, effective: target.shapes ?? store.config.shapes });
	});
	router.put('/orgs/:org/shapes', (req, res) => {
		const target = org(req);
		const body = objectBody(req.body, ['shapes']);
		if (!has(body, 'shapes'))
			throw badField('shapes', `is required: one of ${ANSWER_SHAPES.join(', ')}, or null`);
		target.shapes = body.shapes === null ? null : answerShapes(body.shapes);
		res.json({ shapes: target.shapes, effective: target.shapes ?? store.config.shapes });
	});

	router.get('/faults', (_req, res) => {
		res.json(store.faults);
	});
	router.post('/faults', (req, res) => {
		const body = objectBody(req.body, ['method', 'path', 'kind', 'times', 'org', 'status']);
		const times = has(body, 'times') ? nonNegativeInt(body.times, 'times') : null;
		const status = has(body, 'status') ? nonNegativeInt(body.status, 'status') : null;
		if (status !== null && (status < 100 || status > 599))
			throw badField('status', 'must be an HTTP status');
		const fault: Fault = {
			id: newId('fault', 8),
			kind: oneOf(required(body, 'kind'), FAULT_KINDS, 'kind'),
			method: has(body, 'method') ? text(body.method, 'method', { max: 10 }).toUpperCase() : null,
			path: has(body, 'path') ? text(body.path, 'path', { max: 300 }) : null,
			org: has(body, 'org') ? text(body.org, 'org', { max: 64 }) : null,
			status,
			remaining: times,
			hits: 0,
		};
		store.faults.push(fault);
		res.status(201).json(fault);
	});
	router.delete('/faults', (_req, res) => {
		const cleared = store.faults.length;
		store.faults = [];
		res.json({ cleared });
	});

	router.use(() => {
		throw new ApiError(404, 'no such admin endpoint');
	});
	router.use(errorHandler(log));
	return router;
}
