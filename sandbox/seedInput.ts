import { randomBytes, randomUUID } from 'node:crypto';

import { type AgentInput, parseAgent } from './routes/agents';
import { chatbotField, newChatbot } from './routes/chatbot';
import { parseSipConfig } from './routes/sip';
import { CARRIERS } from './routes/trustProducts';
import { badField } from './errors';
import { newId } from './keys';
import type { Chatbot, Contact, SipConfig, TrustProduct } from './types';
import {
	array,
	e164,
	has,
	type Json,
	object,
	objectBody,
	oneOf,
	onlyKeys,
	required,
	text,
} from './validate';

/** What POST /__sandbox/orgs/:org/seed accepts, validated with the same rules as the public API. */
export interface SeedInput {
	chatbots: Chatbot[];
	agents: { id?: string; input: AgentInput }[];
	sip: SipConfig[];
	contacts: Contact[];
	trustProducts: { carrier: string; product: TrustProduct }[];
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function idField(obj: Record<string, Json>, at: string, pattern: RegExp): string | undefined {
	if (!has(obj, 'id')) return undefined;
	const id = text(obj.id, `${at}.id`, { max: 64 });
	if (!pattern.test(id)) throw badField(`${at}.id`, `must match ${pattern}`);
	return id;
}

function parseChatbot(value: Json, at: string): Chatbot {
	const obj = object(value, at);
	const chatbot = newChatbot(
		idField(obj, at, /^cb_[A-Za-z0-9_]+$/) ?? newId('cb', 12),
		text(required(obj, 'chatbotName', `${at}.`), `${at}.chatbotName`, { max: 100 }),
	);
	const fields: Record<string, Json> = {};
	for (const [name, raw] of Object.entries(obj)) {
		if (name === 'id') continue;
		if (name === 'chatbot_image' || name === 'bubble_icon_image') {
			fields[name] = raw === null ? null : text(raw, `${at}.${name}`, { max: 300 });
			continue;
		}
		try {
			fields[name] = chatbotField(name, raw, false);
		} catch (err) {
			throw badField(`${at}.${name}`, (err as Error).message.replace(`${name} `, ''));
		}
	}
	return Object.assign(chatbot, fields);
}

function parseContact(value: Json, at: string): Contact {
	const obj = object(value, at);
	onlyKeys(obj, ['list', 'name', 'phoneNumber'], `${at}.`);
	return {
		id: newId('contact', 12),
		list: text(required(obj, 'list', `${at}.`), `${at}.list`, { max: 100 }),
		name: has(obj, 'name') ? text(obj.name, `${at}.name`, { max: 200 }) : null,
		phoneNumber: has(obj, 'phoneNumber') ? e164(obj.phoneNumber, `${at}.phoneNumber`) : null,
	};
}

const TRUST_FIELDS = [
	'sid',
	'account_sid',
	'friendly_name',
	'email',
	'status',
	'policy_sid',
	'date_created',
	'date_updated',
	'url',
];

export function parseTrustProduct(
	value: Json,
	at: string,
): { carrier: string; product: TrustProduct } {
	const obj = object(value, at);
	onlyKeys(obj, ['carrier', ...TRUST_FIELDS], `${at}.`);
	const carrier = has(obj, 'carrier') ? oneOf(obj.carrier, CARRIERS, `${at}.carrier`) : 'twilio';
	const now = new Date().toISOString();
	const str = (name: string, fallback: string) =>
		has(obj, name) ? text(obj[name], `${at}.${name}`, { max: 300 }) : fallback;
	const sid = str('sid', `BU${hex(16)}`);
	return {
		carrier,
		product: {
			sid,
			account_sid: str('account_sid', `AC${hex(16)}`),
			friendly_name: text(required(obj, 'friendly_name', `${at}.`), `${at}.friendly_name`, {
				max: 200,
			}),
			email: str('email', 'compliance@example.com'),
			status: str('status', 'twilio-approved'),
			policy_sid: str('policy_sid', `RN${hex(16)}`),
			date_created: str('date_created', now),
			date_updated: str('date_updated', now),
			url: str('url', `https://trusthub.twilio.com/v1/CustomerProfiles/${sid}`),
		},
	};
}

export function parseSeedInput(body: unknown): SeedInput {
	const obj = objectBody(body, ['chatbots', 'agents', 'sip', 'contacts', 'trustProducts']);
	const list = (name: string) => (has(obj, name) ? array(obj[name], name, 1000) : []);
	return {
		chatbots: list('chatbots').map((item, i) => parseChatbot(item, `chatbots[${i}]`)),
		agents: list('agents').map((item, i) => {
			const at = `agents[${i}]`;
			const agent = object(item, at);
			onlyKeys(agent, ['id', 'phoneNumber', 'agentName', 'task', 'selectedVoice'], `${at}.`);
			return {
				id: idField(agent, at, /^agent_[A-Za-z0-9_]+$/),
				input: parseAgent(agent, `${at}.`),
			};
		}),
		sip: list('sip').map((item, i) =>
			parseSipConfig(object(item, `sip[${i}]`), `sip[${i}]`, randomUUID),
		),
		contacts: list('contacts').map((item, i) => parseContact(item, `contacts[${i}]`)),
		trustProducts: list('trustProducts').map((item, i) =>
			parseTrustProduct(item, `trustProducts[${i}]`),
		),
	};
}
