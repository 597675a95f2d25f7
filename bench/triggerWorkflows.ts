/**
 * What the trigger scenario (scenarios/triggerVsWebhook.ts) and its profiler (profileTrigger.ts) share:
 * the two published workflows, Voice AI Trigger → No Op and n8n's Webhook node → No Op, and the
 * delivery posted to each.
 */
import { randomUUID } from 'node:crypto';

import { NODE_TYPES, pollUntil } from '../test/e2e/harness';
import type { WorkflowJson } from '../test/e2e/harness';
import type { Stack } from '../test/e2e/stack';

export type Receiver = 'trigger' | 'webhook';
export const RECEIVERS: Receiver[] = ['trigger', 'webhook'];
export const RECEIVER_LABEL: Record<Receiver, string> = {
	trigger: 'Voice AI Trigger → No Op',
	webhook: "n8n's Webhook node 2.1 (POST, Respond Immediately) → No Op",
};

/** n8n settings the comparison runs under (each in its own n8n process). */
export const TRIGGER_SETTINGS = {
	defaults: { label: 'n8n defaults', env: {} },
	likeForLike: {
		label: '`N8N_EXPRESSION_ENGINE_ALLOW_WEBHOOK_ISOLATE_SKIP=false` (like for like)',
		env: { N8N_EXPRESSION_ENGINE_ALLOW_WEBHOOK_ISOLATE_SKIP: 'false' },
	},
	lazy: {
		label: '`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`',
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	},
} as const;
export type TriggerSetting = keyof typeof TRIGGER_SETTINGS;

export interface Published {
	urls: Record<Receiver, string>;
	workflowIds: Record<Receiver, string>;
}

function noOpWorkflow(name: string, start: WorkflowJson['nodes'][number]): WorkflowJson {
	return {
		name,
		nodes: [start, { name: 'No Op', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} }],
		connections: { [start.name]: { main: [[{ node: 'No Op', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** One completed conversation as the sandbox delivers it (test/sandbox/delivery.ts), with a fresh id. */
export function delivery(): { body: string; headers: Record<string, string> } {
	const conversationId = `conv_bench_${randomUUID()}`;
	return {
		body: JSON.stringify({
			event: 'conversation.completed',
			conversation_id: conversationId,
			source: 'account_webhook',
			agent_id: 'agent_acme_reception',
			chatbot_id: null,
			completed_at: new Date().toISOString(),
			variables: { name: 'Bench Caller', phone: '+14155550100', email: 'caller@example.com', intent: 'book' },
		}),
		headers: { 'content-type': 'application/json', 'x-voiceai-delivery': `dlv_${randomUUID()}`, 'x-voiceai-attempt': '1' },
	};
}

/** Deliveries answered 200 per receiver URL (each starts one execution). */
export const answered = new Map<string, number>();

export async function post(url: string): Promise<number> {
	const { body, headers } = delivery();
	const started = performance.now();
	const response = await fetch(url, { method: 'POST', headers, body });
	await response.arrayBuffer();
	if (response.status !== 200) throw new Error(`${url.replace(/\?.*/, '')} answered ${response.status}`);
	answered.set(url, (answered.get(url) ?? 0) + 1);
	return performance.now() - started;
}

export async function executionCount(stack: Stack, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	return (await stack.api.request<{ count: number }>('GET', `/rest/executions?filter=${filter}&limit=1`)).count;
}

/** Publishes both workflows and returns the URL each receiver is called at (the trigger's with its token). */
export async function publish(stack: Stack): Promise<Published> {
	const webhookPath = `bench-webhook-${randomUUID()}`;
	const triggerNode = {
		name: 'Voice AI Trigger',
		type: NODE_TYPES.trigger,
		typeVersion: 1,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { output: 'variables', options: {} },
		credentials: { voiceAiApi: stack.credential },
	};
	const webhookNode = {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
	};
	const trigger = await stack.api.importWorkflow(noOpWorkflow('Bench: Voice AI Trigger', triggerNode), { voiceAiApi: stack.credential });
	const webhook = await stack.api.importWorkflow(noOpWorkflow("Bench: n8n's Webhook node", webhookNode));
	await stack.api.activateWorkflow(trigger);
	await stack.api.activateWorkflow(webhook);

	const triggerId = trigger.nodes.find((node) => node.name === 'Voice AI Trigger')?.webhookId ?? '';
	// Publishing returns before the trigger has registered its URL (with the token) at the service.
	const triggerUrl = await pollUntil(
		async () => {
			const registered = await stack.admin.accountWebhook(stack.org.id);
			return registered?.includes(triggerId) ? registered : undefined;
		},
		{ what: 'the trigger to register its URL at the sandbox' },
	);
	const urls = { trigger: triggerUrl, webhook: `${stack.n8n.webhookBase.replace(/\/+$/, '')}/webhook/${webhookPath}` };
	for (const receiver of RECEIVERS) {
		await pollUntil(async () => (await post(urls[receiver])) > 0, { what: `the ${receiver} URL to answer 200` });
	}
	return { urls, workflowIds: { trigger: trigger.id, webhook: webhook.id } };
}

