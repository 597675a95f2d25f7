import type { Request, Response, Router } from 'express';

import { orgOf, strictRouter } from '../context';
import { ApiError, badField, badRequest, conflict } from '../errors';
import { jsonBody } from '../middleware/body';
import { sendWriteAnswer } from '../shapes';
import type { Store } from '../store';
import type { DirectionType, Org, SipConfig, SipDirection } from '../types';
import {
	array,
	boolean,
	DIRECTION_TYPES,
	e164,
	has,
	type Json,
	type JsonObject,
	object,
	objectBody,
	oneOf,
	onlyKeys,
	port,
	required,
	sipUri,
	text,
	uuid,
} from '../validate';

export type SipOperation = {
	op: 'attach' | 'detach' | 'update' | 'rename';
	direction?: DirectionType;
};

/**
 * The SIP configuration with the fields of the spec's tables. The spec lists sip_password among the
 * options of the resource and does not say GET hides it, so the sandbox shows it: the node must hide it.
 */
export function publicSip(config: SipConfig) {
	return {
		phone_number: config.phone_number,
		trunkName: config.trunkName,
		uuid_config_id: config.uuid_config_id,
		directions: config.directions.map(({ type, sip_endpoint, options }) => ({
			type,
			sip_endpoint,
			options: {
				port: options.port,
				transport: options.transport,
				secure_media: options.secure_media,
				sip_username: options.sip_username,
				sip_password: options.sip_password,
			},
		})),
	};
}

/**
 * A direction needs type, sip_endpoint and options {port, transport, secure_media}. sip_username and
 * sip_password are optional: when left out they keep the values the same direction already has.
 */
export function parseDirection(value: Json, at: string, existing?: SipDirection[]): SipDirection {
	const dir = object(value, at);
	onlyKeys(dir, ['type', 'sip_endpoint', 'options'], `${at}.`);
	const type = oneOf(required(dir, 'type', `${at}.`), DIRECTION_TYPES, `${at}.type`);
	const sip_endpoint = sipUri(required(dir, 'sip_endpoint', `${at}.`), `${at}.sip_endpoint`);
	const opts = object(required(dir, 'options', `${at}.`), `${at}.options`);
	const o = `${at}.options.`;
	onlyKeys(opts, ['port', 'transport', 'secure_media', 'sip_username', 'sip_password'], o);
	const previous = existing?.find((d) => d.type === type)?.options;
	return {
		type,
		sip_endpoint,
		options: {
			port: port(required(opts, 'port', o), `${o}port`),
			// The spec shows udp and leaves the other names open: any non-empty name is taken.
			transport: text(required(opts, 'transport', o), `${o}transport`, { max: 32 }),
			secure_media: boolean(required(opts, 'secure_media', o), `${o}secure_media`),
			sip_username: has(opts, 'sip_username')
				? text(opts.sip_username, `${o}sip_username`, { max: 128, allowEmpty: true })
				: (previous?.sip_username ?? ''),
			sip_password: has(opts, 'sip_password')
				? text(opts.sip_password, `${o}sip_password`, { max: 128, allowEmpty: true })
				: (previous?.sip_password ?? ''),
		},
	};
}

export function parseDirections(
	value: Json,
	field: string,
	existing?: SipDirection[],
): SipDirection[] {
	const list = array(value, field, 2).map((item, i) =>
		parseDirection(item, `${field}[${i}]`, existing),
	);
	uniqueTypes(
		list.map((d) => d.type),
		field,
	);
	return list;
}

function uniqueTypes(types: DirectionType[], field: string): void {
	if (new Set(types).size !== types.length)
		throw badField(field, 'must not name the same direction twice');
}

function sameDirection(a: SipDirection, b: SipDirection): boolean {
	return (
		a.sip_endpoint === b.sip_endpoint &&
		a.options.port === b.options.port &&
		a.options.transport === b.options.transport &&
		a.options.secure_media === b.options.secure_media &&
		a.options.sip_username === b.options.sip_username &&
		a.options.sip_password === b.options.sip_password
	);
}

/** The operations that turn the current directions into the wanted ones, inbound before outbound. */
export function planDirections(current: SipDirection[], wanted: SipDirection[]): SipOperation[] {
	const ops: SipOperation[] = [];
	for (const type of DIRECTION_TYPES) {
		const now = current.find((d) => d.type === type);
		const next = wanted.find((d) => d.type === type);
		if (!now && next) ops.push({ op: 'attach', direction: type });
		else if (now && !next) ops.push({ op: 'detach', direction: type });
		else if (now && next && !sameDirection(now, next)) ops.push({ op: 'update', direction: type });
	}
	return ops;
}

export function parseSipConfig(body: JsonObject, at: string, newUuid: () => string): SipConfig {
	onlyKeys(body, ['phone_number', 'trunkName', 'uuid_config_id', 'directions'], `${at}.`);
	return {
		phone_number: e164(required(body, 'phone_number', `${at}.`), `${at}.phone_number`),
		trunkName: text(required(body, 'trunkName', `${at}.`), `${at}.trunkName`, { max: 128 }),
		uuid_config_id: has(body, 'uuid_config_id')
			? uuid(body.uuid_config_id, `${at}.uuid_config_id`)
			: newUuid(),
		directions: has(body, 'directions') ? parseDirections(body.directions, `${at}.directions`) : [],
	};
}

export function addSip(store: Store, org: Org, config: SipConfig): void {
	if (store.numberOwner.has(config.phone_number)) {
		throw conflict(
			`phone number ${config.phone_number} already has a SIP configuration`,
			'phone_number',
		);
	}
	org.sip.set(config.phone_number, config);
	store.numberOwner.set(config.phone_number, org.id);
}

function findNumber(org: Org, phone: string): SipConfig {
	const config = org.sip.get(phone);
	if (!config) throw new ApiError(404, 'phone number not found', 'phone_number', 'not_found');
	return config;
}

export function sipRoutes(store: Store): Router {
	const router = strictRouter();

	router.get('/sip/:phone_number', (req, res) => {
		const phone = e164(req.params.phone_number, 'phone_number');
		const org = orgOf(res);
		sendSipGet(res, publicSip(findNumber(org, phone)), sipGetShapes.get(org) ?? 'documented');
	});

	router.patch('/sip/sip2', ...jsonBody(store), (req, res) => {
		const org = orgOf(res);
		recordWrite(org, req.body);
		const body = objectBody(req.body, [
			'trunkName',
			'phone_number',
			'directions',
			'uuid_config_id',
		]);
		const phone = e164(required(body, 'phone_number'), 'phone_number');
		const configId = has(body, 'uuid_config_id')
			? uuid(body.uuid_config_id, 'uuid_config_id')
			: undefined;
		const trunkName = has(body, 'trunkName')
			? text(body.trunkName, 'trunkName', { max: 128 })
			: undefined;
		if (trunkName === undefined && !has(body, 'directions')) {
			throw badRequest('nothing to update: give trunkName and/or directions');
		}
		const config = findNumber(org, phone);
		if (configId !== undefined && configId !== config.uuid_config_id) {
			throw new ApiError(404, 'SIP configuration not found', 'uuid_config_id', 'not_found');
		}
		const wanted = has(body, 'directions')
			? parseDirections(body.directions, 'directions', config.directions)
			: config.directions;

		const operations: SipOperation[] = [];
		if (trunkName !== undefined && trunkName !== config.trunkName)
			operations.push({ op: 'rename' });
		operations.push(...planDirections(config.directions, wanted));

		if (trunkName !== undefined) config.trunkName = trunkName;
		config.directions = DIRECTION_TYPES.flatMap((type) => wanted.filter((d) => d.type === type));
		for (const { op, direction } of operations) {
			const endpoint = config.directions.find((d) => d.type === direction)?.sip_endpoint;
			store.logCarrier(org, {
				phone_number: phone,
				op,
				...(direction ? { direction } : { trunkName: config.trunkName }),
				...(endpoint && op !== 'detach' ? { sip_endpoint: endpoint } : {}),
			});
		}
		const message = operations.length ? 'SIP configuration updated' : 'SIP configuration unchanged';
		sendWriteAnswer(
			res,
			{ message, phone_number: phone, operations, sip: publicSip(config) },
			message,
			{ status: 204 },
		);
	});

	router.post('/sip/detach2', ...jsonBody(store), (req, res) => {
		const org = orgOf(res);
		const body = objectBody(req.body, ['phone_number', 'directions']);
		const phone = e164(required(body, 'phone_number'), 'phone_number');
		const list = array(required(body, 'directions'), 'directions', 2);
		if (list.length === 0) throw badField('directions', 'must name at least one direction');
		const types = list.map((item, i) => {
			const dir = object(item, `directions[${i}]`);
			onlyKeys(dir, ['type'], `directions[${i}].`);
			return oneOf(
				required(dir, 'type', `directions[${i}].`),
				DIRECTION_TYPES,
				`directions[${i}].type`,
			);
		});
		uniqueTypes(types, 'directions');
		const config = findNumber(org, phone);
		types.forEach((type, i) => {
			if (!config.directions.some((d) => d.type === type)) {
				throw conflict(
					`the ${type} direction of ${phone} is not attached`,
					`directions[${i}].type`,
				);
			}
		});
		config.directions = config.directions.filter((d) => !types.includes(d.type));
		const detached = DIRECTION_TYPES.filter((type) => types.includes(type));
		for (const direction of detached)
			store.logCarrier(org, { phone_number: phone, op: 'detach', direction });
		sendWriteAnswer(
			res,
			{ message: 'Phone number detached', phone_number: phone, detached },
			'Phone number detached',
			{
				status: 200,
			},
		);
	});

	return router;
}

/**
 * Shapes GET /sip/{phone} can answer in, set per organization (the spec: "body shape not shown"). None
 * is known to be the service's: they exist so tests prove SIP Update writes the whole intended set or
 * refuses, whatever comes back. `documented` is the sandbox's own shape (an object with directions).
 */
export const SIP_GET_SHAPES = ['documented', 'data', 'list', 'named', 'text'] as const;
export type SipGetShape = (typeof SIP_GET_SHAPES)[number];

const sipGetShapes = new WeakMap<Org, SipGetShape>();
/** Every PATCH /sip/sip2 body an organization sent, as received, so tests can see exactly what was written. */
const sipWrites = new WeakMap<Org, unknown[]>();

function recordWrite(org: Org, body: unknown): void {
	const list = sipWrites.get(org) ?? [];
	list.push(structuredClone(body));
	sipWrites.set(org, list);
}

function sendSipGet(res: Response, sip: ReturnType<typeof publicSip>, shape: SipGetShape): void {
	if (shape === 'data') res.status(200).json({ data: sip });
	else if (shape === 'list') res.status(200).json(sip.directions);
	else if (shape === 'named') res.status(200).json({ sip });
	else if (shape === 'text')
		res
			.status(200)
			.type('text/plain')
			.send(`SIP configuration of ${sip.phone_number}: ${sip.directions.length} direction(s)`);
	else res.status(200).json(sip);
}

/** Admin: GET/PUT /orgs/:org/sip-get-shape {"shape": one of SIP_GET_SHAPES}; GET/DELETE /orgs/:org/sip-writes. */
export function sipShapeAdminRoutes(router: Router, findOrg: (req: Request) => Org): void {
	router.get('/orgs/:org/sip-writes', (req, res) => {
		res.json(sipWrites.get(findOrg(req)) ?? []);
	});
	router.delete('/orgs/:org/sip-writes', (req, res) => {
		const target = findOrg(req);
		const cleared = sipWrites.get(target)?.length ?? 0;
		sipWrites.delete(target);
		res.json({ cleared });
	});
	router.get('/orgs/:org/sip-get-shape', (req, res) => {
		res.json({ shape: sipGetShapes.get(findOrg(req)) ?? 'documented' });
	});
	router.put('/orgs/:org/sip-get-shape', (req, res) => {
		const target = findOrg(req);
		const body = objectBody(req.body, ['shape']);
		const shape = oneOf(required(body, 'shape'), SIP_GET_SHAPES, 'shape');
		sipGetShapes.set(target, shape);
		res.json({ shape });
	});
}
