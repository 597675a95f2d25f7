/**
 * The SIP audit and agent onboarding examples, and every action operation once, run by a real n8n
 * ("Execute workflow" over its REST API) against the sandbox.
 */
import { loadExample, type ExecutionDetail, type WorkflowJson } from '../support/n8n';
import { startStack, type Stack } from '../support/stack';

interface SipRecord {
	phone_number: string;
	directions: Array<{ type: string; sip_endpoint: string; options: Record<string, unknown> }>;
}

interface Chatbot {
	id: string;
	chatbotName: string;
	header_color: string;
	chatbot_image: string | null;
	bubble_icon_image: string | null;
}

let stack: Stack;

beforeAll(async () => {
	stack = await startStack();
}, 180_000);

afterAll(async () => {
	await stack?.close();
});

async function state() {
	return await stack.admin.state<{
		sip: SipRecord[];
		agents: Array<{ id: string; agentName: string; phoneNumber: string; selectedVoice: string }>;
		chatbots: Chatbot[];
		webhook: string | null;
		uploads: Array<Record<string, unknown>>;
	}>(stack.org.id);
}

/** Imports a workflow and runs it from `trigger`; fails with n8n's error when the run did not succeed. */
async function run(workflow: WorkflowJson, trigger: string): Promise<ExecutionDetail> {
	const saved = await stack.api.importWorkflow(workflow, { voiceAiApi: stack.credential });
	const execution = await stack.api.runWorkflow(saved, trigger);
	if (execution.status !== 'success') {
		throw new Error(
			`run of "${workflow.name}" ended ${execution.status}: ${execution.error}\n${stack.n8n.tail()}`,
		);
	}
	return execution;
}

const START = 'Start';

/** A manual-trigger workflow whose Voice AI nodes each run once on the trigger's item. */
function actionWorkflow(
	name: string,
	actions: Record<string, Record<string, unknown>>,
): WorkflowJson {
	const names = Object.keys(actions);
	return {
		name,
		nodes: [
			{
				name: START,
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			...names.map((nodeName, index) =>
				voiceAiNode(nodeName, actions[nodeName], [260, index * 160]),
			),
		],
		connections: {
			[START]: { main: [names.map((node) => ({ node, type: 'main', index: 0 }))] },
		},
		settings: { executionOrder: 'v1' },
	};
}

function voiceAiNode(
	name: string,
	parameters: Record<string, unknown>,
	position: [number, number],
) {
	return {
		name,
		type: 'n8n-nodes-voiceai.voiceAi',
		typeVersion: 1,
		position,
		parameters,
		credentials: { voiceAiApi: { id: 'voiceai-credential', name: 'Voice AI account' } },
	};
}

describe('examples/sip-audit.json', () => {
	test('reports one item per drifted setting, exactly the drift seeded in the sandbox', async () => {
		const workflow = loadExample('sip-audit');
		const audit = workflow.nodes.find((n) => n.name === 'Audit settings');
		const settings = JSON.parse(String(audit?.parameters.jsonOutput)) as {
			numbers: string[];
			expected: Record<'transport' | 'port' | 'secure_media' | 'sip_endpoint', unknown>;
		};

		// What the sandbox holds, compared with the baseline independently of the workflow.
		const seeded = (await state()).sip.filter((s) => settings.numbers.includes(s.phone_number));
		expect(seeded.map((s) => s.phone_number).sort()).toEqual([...settings.numbers].sort());
		const drift = seeded.flatMap((sip) =>
			sip.directions.flatMap((direction) => {
				const actual = {
					transport: direction.options.transport,
					port: direction.options.port,
					secure_media: direction.options.secure_media,
					sip_endpoint: direction.sip_endpoint,
				};
				return (Object.keys(actual) as Array<keyof typeof actual>)
					.filter((field) => actual[field] !== settings.expected[field])
					.map((field) => ({
						phone_number: sip.phone_number,
						direction: direction.type,
						field,
						expected: settings.expected[field],
						actual: actual[field],
					}));
			}),
		);
		// The demo seed's drift (notes/contract.md): +…102 on tcp, +…103 on port 5080 without secure media.
		expect(new Set(drift.map((d) => `${d.phone_number} ${d.field} ${String(d.actual)}`))).toEqual(
			new Set([
				'+14155550102 transport tcp',
				'+14155550103 port 5080',
				'+14155550103 secure_media false',
			]),
		);

		const execution = await run(workflow, 'Every morning');
		expect(execution.mode).toBe('manual');
		expect(execution.outputs['Compare with expected']).toHaveLength(settings.numbers.length);
		expect(execution.outputs['Compare with expected'].map((item) => item.status).sort()).toEqual([
			'drift',
			'drift',
			'in sync',
		]);
		const report = execution.outputs['Flag drift'].map(({ checked_at, ...problem }) => {
			expect(typeof checked_at).toBe('string');
			return problem;
		});
		const key = (p: Record<string, unknown>) => `${p.phone_number} ${p.direction} ${p.field}`;
		const sortByKey = (list: Array<Record<string, unknown>>) =>
			[...list].sort((a, b) => key(a).localeCompare(key(b)));
		expect(sortByKey(report)).toEqual(sortByKey(drift));
		// A dry run: the audit wrote nothing.
		expect((await state()).sip.filter((s) => settings.numbers.includes(s.phone_number))).toEqual(
			seeded,
		);
	});

	test('reports "could not read" for every number when the SIP answer has a shape it cannot read, never no drift', async () => {
		const workflow = loadExample('sip-audit');
		const numbers = (
			JSON.parse(
				String(workflow.nodes.find((n) => n.name === 'Audit settings')?.parameters.jsonOutput),
			) as { numbers: string[] }
		).numbers;
		await stack.admin.request('PUT', `/__sandbox/orgs/${stack.org.id}/sip-get-shape`, {
			shape: 'named',
		});
		try {
			const execution = await run(workflow, 'Every morning');
			const report = execution.outputs['Flag drift'];
			expect(report.map((problem) => problem.phone_number).sort()).toEqual([...numbers].sort());
			for (const problem of report) {
				expect(problem).toMatchObject({
					field: 'configuration',
					expected: 'readable',
					actual: expect.stringMatching(/^could not read: /),
				});
			}
		} finally {
			await stack.admin.request('PUT', `/__sandbox/orgs/${stack.org.id}/sip-get-shape`, {
				shape: 'documented',
			});
		}
	});
});

describe('examples/agent-onboarding.json', () => {
	test('creates one agent per row; a second run reports each duplicate and keeps going', async () => {
		const workflow = loadExample('agent-onboarding');
		const rowsNode = workflow.nodes.find((n) => n.name === 'Agents to create');
		const rows = (
			JSON.parse(String(rowsNode?.parameters.jsonOutput)) as { rows: Array<Record<string, string>> }
		).rows;

		const first = await run(workflow, 'Start onboarding');
		const created = first.outputs['Create agent'];
		expect(created).toHaveLength(rows.length);
		rows.forEach((row, index) => {
			expect(created[index]).toMatchObject({
				agentName: row.agentName,
				phoneNumber: row.phoneNumber,
				selectedVoice: row.selectedVoice,
			});
			expect(typeof created[index].id).toBe('string');
		});
		const agents = (await state()).agents;
		for (const row of rows) {
			expect(agents.filter((a) => a.agentName === row.agentName)).toHaveLength(1);
		}

		const second = await run(workflow, 'Start onboarding');
		const refused = second.outputs['Create agent'];
		expect(refused).toHaveLength(rows.length);
		for (const item of refused) expect(item.error).toBeTruthy();
		expect((await state()).agents).toHaveLength(agents.length);
	});
});

describe('every action operation through n8n', () => {
	test('agent: get many and create', async () => {
		const execution = await run(
			actionWorkflow('e2e agent', {
				'Get agents': { resource: 'agent', operation: 'getAll', returnAll: true },
				'Create agent': {
					resource: 'agent',
					operation: 'create',
					phoneNumber: '+14155550177',
					agentName: 'E2E Receptionist',
					task: 'Greet callers and book appointments.',
					selectedVoice: 'paige',
				},
			}),
			START,
		);
		expect(execution.outputs['Get agents'].map((a) => a.agentName)).toEqual(
			expect.arrayContaining(['Reception', 'Recall Reminders']),
		);
		expect(execution.outputs['Create agent']).toEqual([
			expect.objectContaining({
				agentName: 'E2E Receptionist',
				phoneNumber: '+14155550177',
				selectedVoice: 'paige',
			}),
		]);
		expect((await state()).agents.map((a) => a.agentName)).toContain('E2E Receptionist');
	});

	test('contact: get list names', async () => {
		const execution = await run(
			actionWorkflow('e2e contact', {
				'Get list names': { resource: 'contact', operation: 'getListNames', returnAll: true },
			}),
			START,
		);
		const names = execution.outputs['Get list names'].map((entry) => entry.name);
		expect([...names].sort()).toEqual(['Leads', 'Newsletter', 'Patients']);
	});

	test('trust product: get many for a carrier', async () => {
		const execution = await run(
			actionWorkflow('e2e trust products', {
				'Get trust products': {
					resource: 'trustProduct',
					operation: 'getAll',
					carrier: 'twilio',
					returnAll: true,
				},
			}),
			START,
		);
		const products = execution.outputs['Get trust products'];
		expect(products).toHaveLength(3);
		for (const product of products) expect(typeof product.sid).toBe('string');
	});

	test('sip: get, update and detach', async () => {
		const execution = await run(
			actionWorkflow('e2e sip', {
				'Get SIP': { resource: 'sip', operation: 'get', phoneNumber: '+14155550101' },
				'Update SIP': {
					resource: 'sip',
					operation: 'update',
					phoneNumber: '+14155550102',
					trunkName: 'acme-recall-fixed',
					directions: {
						inbound: {
							sipEndpoint: 'sip:pbx.acme-dental.example',
							port: 5060,
							transport: 'udp',
							secureMedia: true,
						},
					},
				},
				'Detach SIP': {
					resource: 'sip',
					operation: 'detach',
					phoneNumber: '+14155550103',
					directions: ['outbound'],
				},
			}),
			START,
		);
		expect(execution.outputs['Get SIP']).toEqual([
			expect.objectContaining({ phone_number: '+14155550101', trunkName: 'acme-main' }),
		]);
		expect(execution.outputs['Update SIP'][0]).toMatchObject({ phone_number: '+14155550102' });
		expect(execution.outputs['Detach SIP'][0]).toMatchObject({
			phone_number: '+14155550103',
			detached: ['outbound'],
		});

		const sip = (await state()).sip;
		const updated = sip.find((s) => s.phone_number === '+14155550102');
		expect(updated).toMatchObject({ trunkName: 'acme-recall-fixed' });
		expect(updated?.directions.find((d) => d.type === 'inbound')?.options.transport).toBe('udp');
		const detached = sip.find((s) => s.phone_number === '+14155550103');
		expect(detached?.directions.map((d) => d.type) ?? []).not.toContain('outbound');
	});

	test('webhook: set the account webhook', async () => {
		const url = 'https://crm.example.com/hooks/voice-ai';
		const execution = await run(
			actionWorkflow('e2e webhook', {
				'Set webhook': { resource: 'webhook', operation: 'set', webhookUrl: url },
			}),
			START,
		);
		expect(execution.outputs['Set webhook']).toHaveLength(1);
		expect(typeof execution.outputs['Set webhook'][0].message).toBe('string');
		expect((await state()).webhook).toBe(url);
	});

	test('chatbot: update with a chatbot image and a bubble icon made inside the workflow', async () => {
		// A 1x1 PNG and a tiny SVG, turned into binary properties by a Code node.
		const png =
			'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
		const svg = Buffer.from(
			'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle r="4" cx="4" cy="4"/></svg>',
		).toString('base64');
		const workflow: WorkflowJson = {
			name: 'e2e chatbot',
			nodes: [
				{
					name: START,
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					name: 'Two images',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					position: [220, 0],
					parameters: {
						mode: 'runOnceForAllItems',
						language: 'javaScript',
						jsCode: [
							'return [{',
							'  json: {},',
							'  binary: {',
							`    avatar: { data: '${png}', mimeType: 'image/png', fileName: 'avatar.png' },`,
							`    bubble: { data: '${svg}', mimeType: 'image/svg+xml', fileName: 'bubble.svg' },`,
							'  },',
							'}];',
						].join('\n'),
					},
				},
				voiceAiNode(
					'Update chatbot',
					{
						resource: 'chatbot',
						operation: 'update',
						chatbotId: 'cb_acme_support',
						updateFields: {
							chatbotName: 'Acme Support (e2e)',
							header_color: '#123456',
							chatbotImageProperty: 'avatar',
							bubbleIconImageProperty: 'bubble',
						},
					},
					[440, 0],
				),
			],
			connections: {
				[START]: { main: [[{ node: 'Two images', type: 'main', index: 0 }]] },
				'Two images': { main: [[{ node: 'Update chatbot', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
		const execution = await run(workflow, START);
		const [updated] = execution.outputs['Update chatbot'];
		expect(updated).toMatchObject({
			id: 'cb_acme_support',
			chatbotName: 'Acme Support (e2e)',
			header_color: '#123456',
		});
		expect(String(updated.chatbot_image)).toMatch(/\.png$/);
		expect(String(updated.bubble_icon_image)).toMatch(/\.svg$/);

		const chatbot = (await state()).chatbots.find((c) => c.id === 'cb_acme_support');
		expect(chatbot).toMatchObject({
			chatbotName: 'Acme Support (e2e)',
			chatbot_image: updated.chatbot_image,
			bubble_icon_image: updated.bubble_icon_image,
		});
	});
});
