/**
 * The node under n8n's node Settings in a real n8n (runs on every n8n line): with On Error "Continue
 * (using error output)" each operation's failing item (the catalogue's `failing`) leaves on the error
 * output and the others on the success output; Retry On Fail never sends a success twice.
 * One n8n, two workflows. The engine suite (test/node/node-settings.test.ts) covers the rest.
 */
import type { CatalogueEntry } from '../../harness/catalogue';
import type { InputItem } from '../../harness/engine';
import { catalogue, entryName, exampleParameters } from '../../harness/catalogue';
import { START, itemsNode, manualTrigger, voiceAiNode } from '../../harness/manualWorkflow';
import type { ExecutionDetail, WorkflowJson } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const stack = stackForFile();

type Node = WorkflowJson['nodes'][number];
type Item = { json: Record<string, unknown>; pairedItem?: unknown };

const noOp = (name: string): Node => ({
	name,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
});
const succeeded = (name: string) => `${name} (success)`;
const failed = (name: string) => `${name} (error)`;

/**
 * One branch per case from the manual trigger: its items, the Voice AI node with `settings`, and a
 * No Op on each of its outputs, so that the run data shows which items left on which output.
 */
function branches(
	name: string,
	cases: Array<{ name: string; items: InputItem[]; parameters: Record<string, unknown> }>,
	settings: Record<string, unknown>,
): WorkflowJson {
	const nodes: Node[] = [manualTrigger()];
	const connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: 'main'; index: 0 }>> }
	> = { [START]: { main: [[]] } };
	const link = (node: string) => ({ node, type: 'main' as const, index: 0 as const });
	cases.forEach((one, row) => {
		const items = `${one.name} items`;
		const errorOutput = settings.onError === 'continueErrorOutput';
		const at = (column: number, node: Node): Node => ({
			...node,
			position: [220 * column, 200 * row],
		});
		nodes.push(
			at(1, itemsNode(items, one.items)),
			at(2, { ...voiceAiNode(one.name, one.parameters), ...settings }),
			at(3, noOp(succeeded(one.name))),
		);
		connections[START].main[0].push(link(items));
		connections[items] = { main: [[link(one.name)]] };
		connections[one.name] = { main: [[link(succeeded(one.name))]] };
		if (errorOutput) {
			nodes.push(at(3, noOp(failed(one.name))));
			connections[one.name].main.push([link(failed(one.name))]);
		}
	});
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

const pairedIndexes = (items: Item[] = []) =>
	items.map((item) => (item.pairedItem as { item: number } | undefined)?.item);

/**
 * A Voice AI node's two outputs, each item paired with the node's input. The run data holds the
 * node's outputs one after the other (success, then error) with their pairing; the No Op behind each
 * output tells how many items it got.
 */
function outputsOf(execution: ExecutionDetail, name: string): { success: Item[]; failure: Item[] } {
	const all = execution.items[name] ?? [];
	const successCount = execution.items[succeeded(name)]?.length ?? 0;
	const failureCount = execution.items[failed(name)]?.length ?? 0;
	expect(all).toHaveLength(successCount + failureCount);
	return { success: all.slice(0, successCount), failure: all.slice(successCount) };
}

async function runToEnd(workflow: WorkflowJson) {
	const saved = await stack.api.importWorkflow(workflow, { voiceAiApi: stack.credential });
	return await stack.api.runWorkflow(saved, START, { timeoutMs: 120_000 });
}

describe('On Error: Continue (using error output)', () => {
	const issueCase = {
		name: 'Chatbot Update, middle chatbot missing',
		items: ['cb_acme_support', 'cb_missing', 'cb_acme_booking'].map((id) => ({ json: { id } })),
		parameters: {
			resource: 'chatbot',
			operation: 'update',
			chatbotId: '={{ $json.id }}',
			updateFields: { chatbot_title: 'Ask us' },
		},
	};
	const failing = (entry: CatalogueEntry) => ({
		name: entryName(entry),
		items: entry.failing.items,
		parameters: { ...exampleParameters(entry), ...entry.failing.parameters },
	});
	let execution: ExecutionDetail;

	beforeAll(async () => {
		execution = await runToEnd(
			branches('node settings: error output', [issueCase, ...catalogue.map(failing)], {
				onError: 'continueErrorOutput',
			}),
		);
	}, 180_000);

	test('the run succeeds', () => {
		expect({ status: execution.status, error: execution.error }).toEqual({
			status: 'success',
			error: undefined,
		});
	});

	test('Chatbot Update: the missing chatbot on the error output with message, description and 404; the others on the success output, in order', () => {
		const { success, failure } = outputsOf(execution, issueCase.name);
		expect(success.map((item) => [item.json.id, pairedIndexes([item])[0]])).toEqual([
			['cb_acme_support', 0],
			['cb_acme_booking', 2],
		]);
		expect(failure).toHaveLength(1);
		expect(failure[0].json).toEqual({
			id: 'cb_missing',
			error: {
				message: expect.stringMatching(/cb_missing.*404|404.*cb_missing/),
				description: expect.any(String),
				httpCode: '404',
			},
		});
	});

	test.each(catalogue.map((entry) => ({ entry, name: entryName(entry) })))(
		'$name: its failing item on the error output, paired; the others on the success output',
		({ entry, name }) => {
			const { at, message, httpCode } = entry.failing;
			const others = entry.failing.items.map((_, index) => index).filter((i) => i !== at);
			const { success, failure } = outputsOf(execution, name);
			expect(pairedIndexes(failure)).toEqual([at]);
			expect([...new Set(pairedIndexes(success))]).toEqual(others);
			const error = failure[0].json.error as Record<string, unknown>;
			expect(error.message).toMatch(message);
			if (httpCode) expect(error.httpCode).toBe(httpCode);
		},
	);
});

describe('Retry On Fail', () => {
	test('Agent Create, 2 items, one answered 500 once, 2 tries: 3 POSTs, each agent created once, output paired', async () => {
		const names = ['Settings Retry 0', 'Settings Retry 1'];
		const agentCreate = {
			name: 'Agent Create with Retry On Fail',
			items: names.map((agentName, index) => ({
				json: { agentName, phone: `+1415557000${index}` },
			})),
			parameters: {
				resource: 'agent',
				operation: 'create',
				phoneNumber: '={{ $json.phone }}',
				agentName: '={{ $json.agentName }}',
				task: 'Call',
				selectedVoice: 'maya',
				options: { concurrency: 2 },
			},
		};
		await stack.admin.request('DELETE', '/__sandbox/requests');
		await stack.admin.request('POST', '/__sandbox/faults', {
			kind: 'status-500',
			method: 'POST',
			path: '/callback/standardCampaign',
			times: 1,
		});
		try {
			const execution = await runToEnd(
				branches('node settings: retry on fail', [agentCreate], {
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 10,
				}),
			);
			const posts = (
				await stack.admin.request<Array<{ method: string; path: string }>>(
					'GET',
					'/__sandbox/requests',
				)
			).filter(
				(request) => request.method === 'POST' && request.path === '/callback/standardCampaign',
			);
			const agents = (
				await stack.admin.state<{ agents: Array<{ agentName: string }> }>(stack.org.id)
			).agents;
			expect({
				status: execution.status,
				error: execution.error,
				posts: posts.length,
				created: names.map((name) => agents.filter((agent) => agent.agentName === name).length),
			}).toEqual({ status: 'success', error: undefined, posts: 3, created: [1, 1] });
			const out = execution.items[agentCreate.name];
			expect(out.map((item) => [item.json.agentName, pairedIndexes([item])[0]])).toEqual([
				[names[0], 0],
				[names[1], 1],
			]);
		} finally {
			await stack.admin.request('DELETE', '/__sandbox/faults');
		}
	});
});
