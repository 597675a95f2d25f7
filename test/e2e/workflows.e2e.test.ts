/**
 * The SIP audit and agent onboarding examples, and every action operation once (its catalogue
 * example), run by a real n8n ("Execute workflow" over its REST API) against the sandbox.
 */
import { startSandbox } from '../../sandbox';
import type { SandboxState } from '../../harness/catalogue';
import { catalogue, entryName, exampleParameters } from '../../harness/catalogue';
import { START, chain, itemsNode, voiceAiNode } from '../../harness/manualWorkflow';
import type { CredentialRef, ExecutionDetail, WorkflowJson } from '../../harness/n8n';
import { loadExample } from '../../harness/n8n';
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
