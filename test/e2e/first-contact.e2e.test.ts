/**
 * A newcomer's first contact (issue 49), on a freshly started n8n of the line VOICEAI_N8N_DIR names, every
 * option at its default, following the README's "First workflow": the package installed as users install
 * it, a credential, examples/crm-sync.json imported from its bytes with only that credential chosen,
 * Listen for test event, Publish, and the next conversation's run going to the end. Then each refusal a
 * newcomer meets (publish, test listen, Webhook Set) read where n8n shows it: the message names the
 * option and the value that clear it, and that value does.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	EXAMPLES_DIR,
	N8nApiError,
	NODE_TYPES,
	n8nVersion,
	pollUntil,
	type CredentialRef,
	type SavedWorkflow,
	type WorkflowJson,
} from '../../harness/n8n';
import { webhookSetWorkflow } from '../../harness/accountWebhook';
import { stackForFile } from '../../harness/stack';

const TRIGGER = 'Conversation completed';
const UPSERT = 'Upsert contact (your CRM here)';
const stack = stackForFile();

/** Where the sandbox's account webhook of `org` points, without its token. */
async function accountUrl(org: string): Promise<string | undefined> {
	const url = await stack.admin.accountWebhook(org);
	if (!url) return undefined;
	const parsed = new URL(url);
	parsed.searchParams.delete('token');
	return parsed.toString();
}

async function pointsAt(org: string, url: string, what: string): Promise<void> {
	await pollUntil(async () => (await accountUrl(org)) === url, { timeoutMs: 60_000, what });
}

/** A conversation of the organization's first agent completes; returns its id. */
async function converse(org: string, variables: Record<string, string>): Promise<string> {
	const { agents } = await stack.admin.state<{ agents: Array<{ id: string }> }>(org);
	const { conversationId } = await stack.admin.simulateConversation(org, {
		agentId: agents[0].id,
		variables,
	});
	return conversationId;
}

/** The `message` of n8n's REST error answer: the text the editor shows (it drops `description`). */
function restMessage(error: unknown): string {
	if (!(error instanceof N8nApiError)) throw error;
	return String((JSON.parse(error.body) as { message?: unknown }).message);
}

describe('the first workflow: examples/crm-sync.json as shipped, only the credential chosen', () => {
	let workflow: SavedWorkflow;
	let productionUrl: string;
	const caller = { name: 'Ada Lovelace', phone: '+14155550201', email: 'ada@example.com' };
	/** The CRM node got the caller of conversation `id`. */
	const expectContact = (detail: { outputs: Record<string, unknown> }, id: string) =>
		expect(detail.outputs[UPSERT]).toEqual([
			expect.objectContaining({ ...caller, conversation_id: id }),
		]);

	test('imports from the bytes of the file a user downloads', async () => {
		const bytes = readFileSync(join(EXAMPLES_DIR, 'crm-sync.json'), 'utf8');
		workflow = await stack.api.importWorkflow(JSON.parse(bytes) as WorkflowJson, {
			voiceAiApi: stack.credential,
		});
		productionUrl = stack.api.productionWebhookUrl(stack.n8n.webhookBase, workflow, TRIGGER);
		const trigger = workflow.nodes.find((node) => node.name === TRIGGER);
		expect(trigger?.type).toBe(NODE_TYPES.trigger);
		expect(trigger?.credentials?.voiceAiApi.id).toBe(stack.credential.id);
	});

	test('Listen for test event takes the next conversation and runs the workflow to the end', async () => {
		await stack.api.listenForTestEvent(workflow, TRIGGER);
		await pointsAt(
			stack.org.id,
			productionUrl.replace('/webhook/', '/webhook-test/'),
			'the test URL as the account webhook',
		);
		const id = await converse(stack.org.id, { ...caller, intent: 'a test event' });
		const [run] = await stack.api.waitForExecutions(workflow.id, { count: 1 });
		const detail = await stack.api.getExecution(run.id);
		expect({ mode: detail.mode, status: detail.status, error: detail.error }).toEqual({
			mode: 'manual',
			status: 'success',
			error: undefined,
		});
		expectContact(detail, id);
	});

	test('Publish: n8n reports no error and the account webhook points at the production URL', async () => {
		await stack.api.activateWorkflow(workflow);
		await pointsAt(stack.org.id, productionUrl, 'the production URL as the account webhook');
		if (!n8nVersion().startsWith('1.')) {
			const status = await pollUntil(
				async () => {
					const answer = await stack.api.request<{
						status: string;
						triggers: Array<{ errorMessage?: string | null }>;
					}>('GET', `/rest/workflows/${workflow.id}/publication-status`);
					return answer.status === 'in_progress' ? undefined : answer;
				},
				{ what: 'the publication to settle' },
			);
			expect(status).toMatchObject({ status: 'published' });
			expect(status.triggers.map((trigger) => trigger.errorMessage ?? null)).toEqual([null]);
		}
	});

	test('the next conversation runs the published workflow to the end, where the CRM node gets the contact', async () => {
		const id = await converse(stack.org.id, { ...caller, intent: 'book a cleaning' });
		const runs = await stack.api.waitForExecutions(workflow.id, { count: 2 });
		const detail = await stack.api.getExecution(runs[runs.length - 1].id);
		expect({ mode: detail.mode, status: detail.status, last: detail.lastNodeExecuted }).toEqual({
			mode: 'webhook',
			status: 'success',
			last: UPSERT,
		});
		expectContact(detail, id);
	});
});

describe('each refusal names, where n8n shows it, the option and value that clear it', () => {
	// An organization this n8n has not seen: a fresh n8n knows none, the first workflow above aside.
	const org = 'org_globex';
	let credential: CredentialRef;
	let trigger: SavedWorkflow;

	/** A Voice AI Trigger as it is dragged in: every parameter at its default. */
	async function newTrigger(name: string): Promise<SavedWorkflow> {
		const json: WorkflowJson = {
			name,
			nodes: [
				{
					name: 'Voice AI Trigger',
					type: NODE_TYPES.trigger,
					typeVersion: 1.1,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: {},
					credentials: { voiceAiApi: credential },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
		return await stack.api.importWorkflow(json, { voiceAiApi: credential });
	}

	/** What the editor does when the user changes one of the trigger's options and saves. */
	async function setTriggerOption(workflow: SavedWorkflow, name: string, value: string) {
		const current = await stack.api.getWorkflow(workflow.id);
		const nodes = current.nodes.map((node) =>
			node.type === NODE_TYPES.trigger
				? { ...node, parameters: { ...node.parameters, [name]: value } }
				: node,
		);
		await stack.api.request('PATCH', `/rest/workflows/${workflow.id}`, {
			...current,
			nodes,
		});
	}

	/** n8n 1.x answers the publish request with the error; 2.x reports it in the publication status. */
	async function publishRefusal(workflow: SavedWorkflow): Promise<string> {
		const { versionId } = await stack.api.getWorkflow(workflow.id);
		const answer = await stack.api
			.request('POST', `/rest/workflows/${workflow.id}/activate`, { versionId })
			.then(() => undefined, restMessage);
		if (n8nVersion().startsWith('1.')) {
			expect(answer).toBeDefined();
			return String(answer);
		}
		expect(answer).toBeUndefined();
		return await pollUntil(
			async () => {
				const status = await stack.api.request<{ triggers: Array<{ errorMessage?: string }> }>(
					'GET',
					`/rest/workflows/${workflow.id}/publication-status`,
				);
				return status.triggers.find((t) => t.errorMessage)?.errorMessage ?? undefined;
			},
			{ timeoutMs: 30_000, what: `the publication error of "${workflow.name}"` },
		);
	}

	beforeAll(async () => {
		const globex = stack.sandbox.orgs.find((o) => o.id === org)!;
		credential = await stack.api.createVoiceAiCredential(
			{ baseUrl: stack.sandbox.baseUrl, apiKey: globex.apiKey },
			`Voice AI sandbox (${globex.name})`,
		);
		trigger = await newTrigger('A new Voice AI Trigger');
	});

	test('Listen for test event: the answer of the run request', async () => {
		const message = await stack.api
			.listenForTestEvent(trigger, 'Voice AI Trigger')
			.then(() => 'n8n listened', restMessage);
		expect(message).toMatch(/^n8n cannot tell whether a published workflow receives/);
		expect(message).toContain('"If Nobody Can Tell Who Holds It" to "Go Ahead"');
		expect(await accountUrl(org)).toBeUndefined();
	});

	test('Publish: the publication status on 2.x, the activation error on 1.x', async () => {
		const message = await publishRefusal(trigger);
		expect(message).toMatch(/^n8n cannot tell whether another published workflow receives/);
		expect(message).toContain('"If Nobody Can Tell Who Holds It" to "Go Ahead"');
		expect(await accountUrl(org)).toBeUndefined();
		// n8n 2.x leaves the workflow published with a failed trigger: the user unpublishes it first.
		if ((await stack.api.getWorkflow(trigger.id)).active)
			await stack.api.deactivateWorkflow(trigger);
	});

	test('Webhook Set: the error of the node in the run; Take It Over then sets it', async () => {
		const setWorkflow = async (parameters: Record<string, unknown>) =>
			await stack.api.importWorkflow(
				webhookSetWorkflow('Set the webhook by hand', {
					webhookUrl: 'https://crm.example.com/voice-ai',
					...parameters,
				}),
				{ voiceAiApi: credential },
			);
		const refused = await stack.api.runWorkflow(await setWorkflow({}), 'Start');
		expect(refused.status).toBe('error');
		const message = String(refused.nodeErrors['Set Webhook']?.message);
		expect(message).toMatch(/^n8n cannot tell whether a published workflow receives/);
		expect(message).toContain('set "If a Published Trigger Holds It" to "Take It Over"');
		expect(await accountUrl(org)).toBeUndefined();

		const taken = await stack.api.runWorkflow(
			await setWorkflow({ whenTriggerHolds: 'takeOver' }),
			'Start',
		);
		expect({ status: taken.status, error: taken.error }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(await accountUrl(org)).toBe('https://crm.example.com/voice-ai');
	});

	test('the values the messages name clear them: Go Ahead publishes the trigger', async () => {
		await setTriggerOption(trigger, 'whenOwnerUnknown', 'listen');
		await stack.api.activateWorkflow(trigger);
		const url = stack.api.productionWebhookUrl(stack.n8n.webhookBase, trigger, 'Voice AI Trigger');
		await pointsAt(org, url, 'the account webhook on the trigger published with Go Ahead');
		const before = (await stack.api.listExecutions(trigger.id)).length;
		await converse(org, { name: 'Globex caller' });
		await stack.api.waitForExecutions(trigger.id, { count: before + 1 });
	});
});
