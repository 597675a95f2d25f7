/**
 * Hiding secrets changes no other data, in a real n8n (this file runs on every n8n line). Ordinary words
 * and ids with `ct_` in them (contact_list, Direct_Sales, ct_leads, product_x ...) come out of every
 * operation and every error exactly as the service sent them; SIP passwords that are parts of ordinary
 * SIP data (1234, p, udp, sip) hide only the sip_password fields of SIP Get, Compare, Update and Detach;
 * the key shows in no output and not in n8n's log. One n8n start, two workflows.
 */
import { readFileSync } from 'node:fs';

import { START, chain, voiceAiNode } from '../../harness/manualWorkflow';
import { n8nVersion, type ExecutionDetail } from '../../harness/n8n';
import { CT_TEXT, CT_URL, SHORT_SIP_PASSWORDS, vocabularySeed } from '../../harness/sandboxAdmin';
import {
	AGENT_CREATE,
	CHATBOT_UPDATE,
	DUPLICATE_AGENT,
	MISSING_CARRIER,
	MISSING_CHATBOT,
} from '../hostile/vocabularyWrites';
import { stackForFile } from '../../harness/stack';

const HIDDEN = '(set, hidden)';
const NEW_ENDPOINT = 'sip:pbx9.example.com';

const stack = stackForFile({ n8n: { env: { N8N_LOG_LEVEL: 'debug' } } });

beforeAll(async () => {
	await stack.admin.seed(stack.org.id, vocabularySeed());
}, 300_000);

interface State {
	agents: Array<Record<string, unknown>>;
	chatbots: Array<Record<string, unknown>>;
	contactLists: string[];
	sip: Array<Record<string, unknown> & { phone_number: string; uuid_config_id: string }>;
	trustProducts: Array<Record<string, unknown>>;
}

/** A Voice AI node that runs once (whatever the node before it output) and tries each request once. */
function step(name: string, parameters: Record<string, unknown>, continueOnFail = false) {
	return {
		...voiceAiNode(
			name,
			{ options: { maxAttempts: 1 }, ...parameters },
			{
				voiceAiApi: stack.credential,
			},
		),
		executeOnce: true,
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	};
}

async function run(name: string, nodes: ReturnType<typeof step>[]): Promise<ExecutionDetail> {
	const saved = await stack.api.importWorkflow(chain(name, nodes));
	return await stack.api.runWorkflow(saved, START);
}

type ShortPassword = (typeof SHORT_SIP_PASSWORDS)[number];

/** A seeded number's configuration as the node shows it, with its inbound endpoint and directions. */
function shown(
	entry: ShortPassword,
	uuid: string | undefined,
	inboundEndpoint: string,
	types: string[] = ['inbound', 'outbound'],
) {
	return {
		phone_number: entry.phone_number,
		...(uuid === undefined ? {} : { trunkName: entry.trunkName, uuid_config_id: uuid }),
		directions: types.map((type) => ({
			type,
			sip_endpoint: type === 'inbound' ? inboundEndpoint : entry.sip_endpoint,
			options: {
				port: 5060,
				transport: entry.transport,
				secure_media: true,
				sip_username: entry.sip_username,
				sip_password: HIDDEN,
			},
		})),
	};
}

describe(`n8n ${n8nVersion()}`, () => {
	test('every operation and error item keeps the words, ids and SIP data the service sent; only passwords are hidden', async () => {
		const before = await stack.admin.state<State>(stack.org.id);
		const execution = await run('vocabulary outputs', [
			step('Agents', { resource: 'agent', operation: 'getAll', returnAll: true }),
			step('Lists', { resource: 'contact', operation: 'getListNames', returnAll: true }),
			step('Trust', {
				resource: 'trustProduct',
				operation: 'getAll',
				carrier: 'twilio',
				returnAll: true,
			}),
			step('Chatbot', CHATBOT_UPDATE),
			step('Create', AGENT_CREATE),
			step('Vocabulary SIP', { resource: 'sip', operation: 'get', phoneNumber: '+14155550171' }),
			...SHORT_SIP_PASSWORDS.flatMap(({ password, phone_number: phoneNumber }) => {
				const directions = { inbound: { sipEndpoint: NEW_ENDPOINT, sipPassword: password } };
				return [
					step(`Get ${password}`, { resource: 'sip', operation: 'get', phoneNumber }),
					step(`Compare ${password}`, {
						resource: 'sip',
						operation: 'compare',
						phoneNumber,
						directions,
					}),
					step(`Update ${password}`, {
						resource: 'sip',
						operation: 'update',
						phoneNumber,
						directions,
					}),
					step(`Detach ${password}`, {
						resource: 'sip',
						operation: 'detach',
						phoneNumber,
						directions: ['outbound'],
					}),
				];
			}),
			step('Duplicate', DUPLICATE_AGENT, true),
			step('No chatbot', MISSING_CHATBOT, true),
			step('No carrier', MISSING_CARRIER, true),
		]);
		expect({ status: execution.status, error: execution.error }).toEqual({
			status: 'success',
			error: undefined,
		});
		const after = await stack.admin.state<State>(stack.org.id);
		const { outputs } = execution;

		expect(outputs.Agents).toEqual(before.agents);
		expect(outputs.Lists).toEqual(before.contactLists.map((name) => ({ name })));
		expect(outputs.Trust).toEqual(
			before.trustProducts
				.filter((product) => product.carrier === 'twilio')
				.map(({ carrier: _carrier, ...product }) => product),
		);
		expect(outputs.Trust).toContainEqual(
			expect.objectContaining({
				friendly_name: 'Direct_Sales',
				email: 'contact_us@acme.example',
				url: CT_URL,
			}),
		);
		expect(outputs.Chatbot).toEqual(
			after.chatbots.filter((chatbot) => chatbot.id === 'cb_contact_us'),
		);
		expect(outputs.Chatbot[0]).toMatchObject({
			chatbotName: 'contact_list',
			welcome_message: CT_TEXT,
		});
		expect(outputs.Create).toEqual([after.agents.at(-1)]);
		expect(outputs.Create[0]).toMatchObject({ agentName: 'Connect_Team', task: CT_TEXT });
		expect(outputs['Vocabulary SIP']).toEqual([
			expect.objectContaining({ trunkName: 'connect_trunk_product_x' }),
		]);
		expect(JSON.stringify(outputs['Vocabulary SIP'])).toContain('"sip_username":"contact_user"');

		for (const entry of SHORT_SIP_PASSWORDS) {
			const { password, phone_number: phoneNumber } = entry;
			const uuid = before.sip.find((config) => config.phone_number === phoneNumber)!.uuid_config_id;
			expect({ password, output: outputs[`Get ${password}`] }).toEqual({
				password,
				output: [shown(entry, uuid, entry.sip_endpoint)],
			});
			expect({ password, output: outputs[`Compare ${password}`] }).toEqual({
				password,
				output: [
					{
						phone_number: phoneNumber,
						status: 'drift',
						wouldSend: shown(entry, undefined, NEW_ENDPOINT),
						differences: [
							{
								field: 'sip_endpoint',
								direction: 'inbound',
								current: entry.sip_endpoint,
								intended: NEW_ENDPOINT,
							},
						],
						current: shown(entry, uuid, entry.sip_endpoint),
					},
				],
			});
			expect({ password, output: outputs[`Update ${password}`] }).toEqual({
				password,
				output: [
					{
						message: 'SIP configuration updated',
						phone_number: phoneNumber,
						operations: [{ op: 'update', direction: 'inbound' }],
						sip: shown(entry, uuid, NEW_ENDPOINT),
					},
				],
			});
			expect({ password, output: outputs[`Detach ${password}`] }).toEqual({
				password,
				output: [
					{ message: 'Phone number detached', phone_number: phoneNumber, detached: ['outbound'] },
				],
			});
			const stored = after.sip.find((config) => config.phone_number === phoneNumber);
			expect(JSON.stringify(stored)).toContain(`"sip_password":"${password}"`);
		}

		expect(
			[outputs.Duplicate, outputs['No chatbot'], outputs['No carrier']].map(
				(items) => items[0].error,
			),
		).toEqual([
			'Voice AI reported a conflict (409): an agent named "Direct_Sales" already exists',
			'Chatbot "ct_leads" was not found (404): chatbot not found',
			'Carrier "ct_leads" was not found (404): carrier not found',
		]);
		expect(JSON.stringify(outputs)).not.toContain(stack.org.apiKey);
	});

	test('a failed run names contact_list as the service did, and the log never shows the key', async () => {
		const execution = await run('vocabulary error', [
			step('Duplicate', {
				resource: 'agent',
				operation: 'create',
				phoneNumber: '+14155550166',
				agentName: 'contact_list',
				task: 'x',
				selectedVoice: 'maya',
			}),
		]);
		expect(execution.status).toBe('error');
		expect(execution.error).toContain('an agent named "contact_list" already exists');
		expect(readFileSync(stack.n8n.logFile, 'utf8')).not.toContain(stack.org.apiKey);
	});
});
