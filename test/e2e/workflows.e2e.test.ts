/**
 * Every shipped example imported from its bytes (examples/, only the credential chosen) into a real n8n
 * and run against the sandbox: the SIP audit and agent onboarding by hand ("Execute workflow" over its
 * REST API), the router and the recording recipe published and fed by deliveries (CRM sync: its own
 * files, crm-sync and first-contact); and every action operation once (its catalogue example).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { startSandbox } from '../../sandbox';
import { postDelivery } from '../../harness/accountWebhook';
import type { SandboxState } from '../../harness/catalogue';
import { catalogue, entryName, exampleParameters } from '../../harness/catalogue';
import { START, chain, itemsNode, voiceAiNode } from '../../harness/manualWorkflow';
import type {
	CredentialRef,
	ExecutionDetail,
	SavedWorkflow,
	WorkflowJson,
} from '../../harness/n8n';
import { exampleNames, loadExample, n8nDir, pollUntil } from '../../harness/n8n';
import { startLoopback } from '../../harness/loopback';
import { SandboxAdmin } from '../../harness/sandboxAdmin';
import { stackForFile } from '../../harness/stack';

interface SipRecord {
	phone_number: string;
	directions: Array<{ type: string; sip_endpoint: string; options: Record<string, unknown> }>;
}

const stack = stackForFile();

async function state() {
	return await stack.admin.state<{
		sip: SipRecord[];
		agents: Array<{ id: string; agentName: string; phoneNumber: string; selectedVoice: string }>;
	}>(stack.org.id);
}

/**
 * Imports a workflow (its Voice AI nodes with `credential`) and runs it from `trigger`; fails with
 * n8n's error when the run did not succeed.
 */
async function run(
	workflow: WorkflowJson,
	trigger: string,
	credential: CredentialRef = stack.credential,
): Promise<ExecutionDetail> {
	const saved = await stack.api.importWorkflow(workflow, { voiceAiApi: credential });
	const execution = await stack.api.runWorkflow(saved, trigger);
	if (execution.status !== 'success') {
		throw new Error(
			`run of "${workflow.name}" ended ${execution.status}: ${execution.error}\n${stack.n8n.tail()}`,
		);
	}
	return execution;
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
		await stack.admin.withSipGetShape(stack.org.id, 'named', async () => {
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
		});
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

describe('every shipped example', () => {
	test('has a test that imports it from its bytes', () => {
		// crm-sync: crm-sync.e2e.test.ts and first-contact.e2e.test.ts; every other one: this file.
		expect(exampleNames()).toEqual([
			'agent-onboarding',
			'conversation-router',
			'crm-sync',
			'download-recording',
			'sip-audit',
		]);
	});

	test.each(exampleNames())(
		'%s.json imports, and this n8n has every node type and version it uses (sub-workflows included)',
		async (name) => {
			const saved = await stack.api.importWorkflow(loadExample(name), {
				voiceAiApi: stack.credential,
			});
			const types = await stack.api.request<Array<{ name: string; version: number | number[] }>>(
				'GET',
				'/types/nodes.json',
			);
			const versions = new Map<string, number[]>();
			for (const type of types)
				versions.set(type.name, [
					...(versions.get(type.name) ?? []),
					...([] as number[]).concat(type.version),
				]);
			const inline = saved.nodes
				.filter((node) => node.parameters.source === 'parameter')
				.flatMap(
					(node) => (JSON.parse(String(node.parameters.workflowJson)) as WorkflowJson).nodes,
				);
			const unknown = [...saved.nodes, ...inline]
				.filter((node) => !versions.get(node.type)?.includes(Number(node.typeVersion)))
				.map((node) => `${node.name}: ${node.type} ${String(node.typeVersion)}`);
			expect(unknown).toEqual([]);
		},
	);
});

/** Publishes a shipped example as is; returns it and its production URL once the account points there. */
async function publishExample(name: string): Promise<{ workflow: SavedWorkflow; url: string }> {
	const workflow = await stack.api.importWorkflow(loadExample(name), {
		voiceAiApi: stack.credential,
	});
	await stack.api.activateWorkflow(workflow);
	const url = stack.api.productionWebhookUrl(
		stack.n8n.webhookBase,
		workflow,
		'Conversation completed',
	);
	await pollUntil(
		async () => (await stack.admin.accountWebhook(stack.org.id))?.startsWith(`${url}?token=`),
		{ timeoutMs: 60_000, what: `"${workflow.name}" as the account webhook` },
	);
	return { workflow, url };
}

/**
 * The workflow's run started by delivery number `index` (0 first), failing unless it succeeded. Only
 * the trigger's runs count: a sub-workflow the router defines inline runs as an execution of it too.
 */
async function nextRun(workflow: SavedWorkflow, index: number): Promise<ExecutionDetail> {
	const runs = await pollUntil(
		async () => {
			const all = await stack.api.waitForExecutions(workflow.id, { count: index + 1 });
			const delivered = all.filter((run) => run.mode === 'webhook');
			return delivered.length > index ? delivered : undefined;
		},
		{ timeoutMs: 60_000, what: `run ${index + 1} of "${workflow.name}"` },
	);
	const run = await stack.api.getExecution(runs[index].id);
	if (run.status !== 'success')
		throw new Error(
			`run of "${workflow.name}" ended ${run.status}: ${run.error}\n${stack.n8n.tail()}`,
		);
	return run;
}

describe('examples/conversation-router.json', () => {
	let router: SavedWorkflow | undefined;
	afterAll(async () => {
		if (router) await stack.api.deactivateWorkflow(router);
	});

	test("published as shipped, it hands an agent's conversation to the agent workflow and a chatbot's to the chatbot workflow", async () => {
		router = (await publishExample('conversation-router')).workflow;
		const { agents, chatbots } = await stack.admin.state<{
			agents: Array<{ id: string }>;
			chatbots: Array<{ id: string }>;
		}>(stack.org.id);

		/** The router's `index`-th run hands the conversation of `source` to `handledBy` alone. */
		const expectHandedTo = async (
			index: number,
			source: { agentId: string } | { chatbotId: string },
			name: string,
			handledBy: string,
			other: string,
		) => {
			await stack.admin.simulateConversation(stack.org.id, { ...source, variables: { name } });
			const run = await nextRun(router!, index);
			expect(run.outputs[`Run ${handledBy}`]).toEqual([
				expect.objectContaining({
					name,
					handledBy,
					_voiceAi: expect.objectContaining(source),
				}),
			]);
			expect(run.outputs[`Run ${other}`]).toBeUndefined();
		};
		await expectHandedTo(
			0,
			{ agentId: agents[0].id },
			'Agent caller',
			'the agent workflow',
			'the chatbot workflow',
		);
		await expectHandedTo(
			1,
			{ chatbotId: chatbots[0].id },
			'Chatbot visitor',
			'the chatbot workflow',
			'the agent workflow',
		);
	});
});

describe('examples/download-recording.json', () => {
	test('published as shipped, it downloads the URL a delivery carries as binary data, and passes a delivery without one', async () => {
		const audio = Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVEfmt fake recording bytes', 'latin1');
		const recordings = await startLoopback();
		recordings.handle((_, res) => {
			res.writeHead(200, {
				'Content-Type': 'audio/wav',
				'Content-Disposition': 'attachment; filename="conv_rec.wav"',
			});
			res.end(audio);
		});
		const { workflow } = await publishExample('download-recording');
		try {
			// The sandbox's deliveries carry no recording: the run ends at "Has a recording".
			const { agents } = await state();
			await stack.admin.simulateConversation(stack.org.id, {
				agentId: agents[0].id,
				variables: { name: 'No recording' },
			});
			const without = await nextRun(workflow, 0);
			expect(without.outputs['Download the recording']).toBeUndefined();

			// A delivery with a top-level recording_url (the spec shows no such field: the recipe names
			// where it reads it), sent as the service would, with the registered token.
			const registered = String(await stack.admin.accountWebhook(stack.org.id));
			const answer = await postDelivery(registered, {
				event: 'conversation.completed',
				conversation_id: 'conv_with_recording',
				agent_id: agents[0].id,
				completed_at: new Date().toISOString(),
				recording_url: `${recordings.url}/recordings/conv_with_recording.wav`,
				variables: { name: 'With recording' },
			});
			expect(answer.status).toBe(200);
			const withRecording = await nextRun(workflow, 1);
			expect(recordings.requests.map((r) => [r.method, r.url])).toEqual([
				['GET', '/recordings/conv_with_recording.wav'],
			]);
			const binary = await binaryOf(withRecording.id, 'Download the recording');
			expect(binary).toEqual([
				expect.objectContaining({
					recording: expect.objectContaining({ mimeType: 'audio/wav' }),
				}),
			]);
			expect(withRecording.outputs['Download the recording']).toEqual([
				expect.objectContaining({
					recordingUrl: `${recordings.url}/recordings/conv_with_recording.wav`,
				}),
			]);
		} finally {
			await stack.api.deactivateWorkflow(workflow);
			await recordings.close();
		}
	});
});

/** The binary fields (metadata) of each output item of `node` in a stored run. */
async function binaryOf(
	executionId: string,
	node: string,
): Promise<Array<Record<string, { mimeType?: string; fileName?: string }>>> {
	const raw = await stack.api.request<{ data: string }>('GET', `/rest/executions/${executionId}`);
	const flatted = createRequire(join(n8nDir(), 'node_modules', 'n8n', 'package.json'))(
		'flatted',
	) as { parse(text: string): unknown };
	const data = flatted.parse(raw.data) as {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<Array<{ binary?: never }> | null> } }>>;
		};
	};
	const runs = data.resultData.runData[node] ?? [];
	return (runs[runs.length - 1]?.data?.main?.[0] ?? []).map((item) => item.binary ?? {});
}

describe('every action operation through n8n, from the catalogue (harness/catalogue.ts)', () => {
	// Each example on a sandbox of its own, as in the wire test, so that no example's writes change
	// what another one reads.
	test.each(catalogue.map((entry) => ({ entry, name: entryName(entry) })))(
		'$name: its example runs, its output and the sandbox hold',
		async ({ entry, name }) => {
			const sandbox = await startSandbox();
			try {
				const admin = new SandboxAdmin(sandbox);
				const acme = sandbox.orgs.find((org) => org.id === 'org_acme')!;
				const credential = await stack.api.createVoiceAiCredential(
					{ baseUrl: sandbox.baseUrl, apiKey: acme.apiKey },
					`Voice AI sandbox for ${name}`,
				);
				const { items } = entry.example;
				const workflow = chain(`e2e ${name}`, [
					...(items ? [itemsNode('Items', items)] : []),
					voiceAiNode(name, exampleParameters(entry)),
				]);
				const before = await admin.state<SandboxState>(acme.id);
				const execution = await run(workflow, START, credential);
				const result = { items: execution.items[name] };
				entry.example.check(result);
				const after = await admin.state<SandboxState>(acme.id);
				if (entry.example.holds) entry.example.holds(after, result);
				else expect(after).toEqual(before);
			} finally {
				await sandbox.close();
			}
		},
	);
});
