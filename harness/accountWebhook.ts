/**
 * The organization's one webhook as the e2e ownership suites watch it in a real n8n: trigger and
 * Webhook Set workflows, where the sandbox's account webhook points, whose run the next delivery
 * starts, and what n8n says when a publish is refused.
 */
import { randomUUID } from 'node:crypto';

import { type CredentialRef, NODE_TYPES, n8nVersion, pollUntil, type SavedWorkflow } from './n8n';
import type { WorkflowJson } from './n8n';
import type { Stack } from './stack';
import { manualTrigger } from './manualWorkflow';

export const TRIGGER = 'Voice AI Trigger';

const unescaped = (text: string) => text.replace(/\\"/g, '"').replace(/\\\\/g, '\\');

/** Webhook Set after `start` (a Manual Trigger unless another node named Start is given). */
export function webhookSetWorkflow(
	name: string,
	parameters: Record<string, unknown>,
	start: WorkflowJson['nodes'][number] = manualTrigger(),
): WorkflowJson {
	return {
		name,
		nodes: [
			start,
			{
				name: 'Set Webhook',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [240, 0],
				parameters: { resource: 'webhook', operation: 'set', ...parameters },
				credentials: { voiceAiApi: { id: 'placeholder', name: 'placeholder' } },
			},
		],
		connections: { Start: { main: [[{ node: 'Set Webhook', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

export class AccountWebhook {
	/** The trigger workflows this rig made. */
	private readonly made: SavedWorkflow[] = [];

	constructor(
		private readonly stack: Stack,
		readonly org = stack.org.id,
	) {}

	async trigger(
		name: string,
		parameters: Record<string, unknown> = {},
		credential: CredentialRef = this.stack.credential,
	): Promise<SavedWorkflow> {
		const json: WorkflowJson = {
			name,
			nodes: [
				{
					name: TRIGGER,
					type: NODE_TYPES.trigger,
					typeVersion: 1,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { output: 'variables', ...parameters },
					credentials: { voiceAiApi: { id: 'placeholder', name: 'placeholder' } },
				},
			] as WorkflowJson['nodes'],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
		const workflow = await this.stack.api.importWorkflow(json, { voiceAiApi: credential });
		this.made.push(workflow);
		return workflow;
	}

	/** A workflow that runs Webhook Set by hand (Manual Trigger). */
	async webhookSet(
		name: string,
		parameters: Record<string, unknown> = {},
		credential: CredentialRef = this.stack.credential,
	): Promise<SavedWorkflow> {
		return await this.stack.api.importWorkflow(webhookSetWorkflow(name, parameters), {
			voiceAiApi: credential,
		});
	}

	productionUrl(workflow: SavedWorkflow): string {
		return this.stack.api.productionWebhookUrl(this.stack.n8n.webhookBase, workflow, TRIGGER);
	}

	/** Where the account webhook points, without its token. */
	async accountUrl(): Promise<string | undefined> {
		const url = await this.stack.admin.accountWebhook(this.org);
		if (!url) return undefined;
		const parsed = new URL(url);
		parsed.searchParams.delete('token');
		return parsed.toString();
	}

	/** Waits (60 s at most: a loaded machine answers slowly) until the account webhook points at `url`. */
	async pointsAt(url: string, what: string): Promise<void> {
		await pollUntil(async () => (await this.accountUrl()) === url, { timeoutMs: 60_000, what });
	}

	/** Runs of the workflow, of one mode or all (n8n 2.41 refuses a page over 100). */
	async runs(workflow: SavedWorkflow, mode: string | undefined = 'webhook'): Promise<number> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: workflow.id }));
		const page = await this.stack.api.request<{ results: Array<{ mode: string }> }>(
			'GET',
			`/rest/executions?filter=${filter}&limit=100`,
		);
		return page.results.filter((e) => mode === undefined || e.mode === mode).length;
	}

	/** The service completes a conversation; waits until its delivery is settled and returns the answers' codes. */
	async delivers(): Promise<number[]> {
		const state = await this.stack.admin.state<{ agents: Array<{ id: string }> }>(this.org);
		const { conversationId } = await this.stack.admin.simulateConversation(this.org, {
			agentId: state.agents[0].id,
			variables: { name: `caller ${randomUUID().slice(0, 6)}` },
		});
		const delivery = await pollUntil(
			async () => {
				const all = await this.stack.admin.deliveries(this.org);
				const mine = all.find((d) => d.conversationId === conversationId && d.target === 'account');
				return mine && mine.status !== 'pending' ? mine : undefined;
			},
			{ timeoutMs: 60_000, what: `the delivery of ${conversationId}` },
		);
		return delivery.responseCodes;
	}

	/** The next delivery is answered 200 and runs `holder` once, and none of `others` in any mode. */
	async nextDeliveryRuns(holder: SavedWorkflow, others: SavedWorkflow[] = []): Promise<void> {
		const before = await this.runs(holder);
		const othersBefore = await Promise.all(
			others.map(async (wf) => await this.runs(wf, undefined)),
		);
		expect((await this.delivers()).at(-1)).toBe(200);
		await pollUntil(async () => (await this.runs(holder)) === before + 1, {
			what: `one new run of "${holder.name}"`,
		});
		const othersAfter = await Promise.all(others.map(async (wf) => await this.runs(wf, undefined)));
		expect(othersAfter).toEqual(othersBefore);
	}

	/**
	 * Publishes and returns n8n's error text once it holds `expected`. n8n 1.x answers the activation
	 * request with the error; 2.x publishes in the background and reports it in the publication status.
	 */
	async publishError(workflow: SavedWorkflow, expected: string | RegExp): Promise<string> {
		const { versionId } = await this.stack.api.getWorkflow(workflow.id);
		const holds = (text: string) =>
			typeof expected === 'string' ? text.includes(expected) : expected.test(text);
		const answer = await this.stack.api
			.request('POST', `/rest/workflows/${workflow.id}/activate`, { versionId })
			.then(
				() => '',
				(error: Error) => error.message,
			);
		if (holds(unescaped(answer))) return unescaped(answer);
		return await pollUntil(
			async () => {
				const status = await this.stack.api
					.request<unknown>('GET', `/rest/workflows/${workflow.id}/publication-status`)
					.catch((error: Error) => error.message);
				const text = unescaped(JSON.stringify(status));
				return holds(text) ? text : undefined;
			},
			{ timeoutMs: 30_000, what: `the publication error of "${workflow.name}"` },
		);
	}

	async unpublish(...workflows: SavedWorkflow[]): Promise<void> {
		for (const workflow of workflows) await this.stack.api.deactivateWorkflow(workflow);
	}

	/**
	 * Restarts n8n as users do (SIGTERM, same user folder) and logs in again. n8n 1.x answers requests
	 * before it has published its workflows again: it waits for those (a workflow unpublished while
	 * n8n 1.x starts is published again by its start, an n8n race a test must not run into).
	 */
	async restartN8n(): Promise<void> {
		const active: SavedWorkflow[] = [];
		for (const workflow of this.made) {
			if ((await this.stack.api.getWorkflow(workflow.id)).active) active.push(workflow);
		}
		const line = (w: SavedWorkflow) => `Activated workflow "${w.name}" (ID: ${w.id})`;
		const seen = (w: SavedWorkflow) => this.stack.n8n.tail(400).split(line(w)).length - 1;
		const before = active.map(seen);
		await this.stack.n8n.restart();
		await this.stack.api.login();
		if (!n8nVersion().startsWith('1.')) return;
		await pollUntil(async () => active.every((w, i) => seen(w) > before[i]) || undefined, {
			timeoutMs: 60_000,
			what: 'n8n 1.x publishing its workflows again at start',
		});
	}
}

/** `body` POSTed as JSON to a webhook URL, as the service delivers a conversation. */
export async function postDelivery(url: string | URL, body: unknown): Promise<Response> {
	return await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
}
