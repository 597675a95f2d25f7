/**
 * What the trigger scenario (scenarios/triggerVsWebhook.ts) and its profiler (profileTrigger.ts) share:
 * the published workflows, n8n's Webhook node → No Op and Voice AI Trigger → No Op (one per version
 * of the built node: workflows saved with an older version keep it), and the delivery posted to each.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { NODE_TYPES, pollUntil } from '../harness/n8n';
import type { CredentialRef, WorkflowJson } from '../harness/n8n';
import type { Stack } from '../harness/stack';

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

export const WEBHOOK = 'webhook';
export const WEBHOOK_HEADER_AUTH = 'webhook-header-auth';
const HEADER_AUTH = { name: 'x-bench-auth', value: 'bench-header-auth-value' };

export interface Receiver {
	key: string;
	label: string;
	/** Trigger receivers: the node version in the workflow. */
	typeVersion?: number;
	/** n8n's Webhook node with Header Auth: a credential on the start node, as the trigger has. */
	headerAuth?: boolean;
}

/** The versions of the built Voice AI Trigger, and the one n8n's editor gives a newly added node. */
export function triggerVersions(): { versions: number[]; defaultVersion: number } {
	const file = join(__dirname, '..', 'dist', 'nodes', 'VoiceAiTrigger', 'VoiceAiTrigger.node.js');
	const { VoiceAiTrigger } = require(file) as {
		VoiceAiTrigger: new () => {
			description: { version: number | number[]; defaultVersion?: number };
		};
	};
	const { version, defaultVersion } = new VoiceAiTrigger().description;
	const versions = Array.isArray(version) ? version : [version];
	return { versions, defaultVersion: defaultVersion ?? Math.max(...versions) };
}

/** n8n's Webhook node, then the trigger at each of its versions (the default one marked). */
export function receivers(): Receiver[] {
	const { versions, defaultVersion } = triggerVersions();
	return [
		{ key: WEBHOOK, label: "n8n's Webhook node 2.1 (POST, Respond Immediately) → No Op" },
		...versions.map((typeVersion) => ({
			key: `trigger-${typeVersion}`,
			label: `Voice AI Trigger ${typeVersion}${typeVersion === defaultVersion ? ' (a new node)' : ' (saved workflows)'} → No Op`,
			typeVersion,
		})),
	];
}

/**
 * n8n's Webhook node checking a header against a credential. Any workflow whose nodes hold a
 * credential costs n8n a few database reads per run that the bare Webhook node does not; this
 * reference pays them too.
 */
export function headerAuthReceiver(): Receiver {
	return {
		key: WEBHOOK_HEADER_AUTH,
		label: "n8n's Webhook node 2.1 with Header Auth (a credential, as the trigger) → No Op",
		headerAuth: true,
	};
}

export interface Published {
	urls: Record<string, string>;
	/** Posts one delivery to the receiver (with the headers it needs): see post(). */
	send: Record<string, () => Promise<number | undefined>>;
	workflowIds: Record<string, string>;
}

function noOpWorkflow(name: string, start: WorkflowJson['nodes'][number]): WorkflowJson {
	return {
		name,
		nodes: [
			start,
			{
				name: 'No Op',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		],
		connections: { [start.name]: { main: [[{ node: 'No Op', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** One completed conversation as the sandbox delivers it (sandbox/delivery.ts), with a fresh id. */
function delivery(): { body: string; headers: Record<string, string> } {
	return {
		body: JSON.stringify({
			event: 'conversation.completed',
			conversation_id: `conv_bench_${randomUUID()}`,
			source: 'account_webhook',
			agent_id: 'agent_acme_reception',
			chatbot_id: null,
			completed_at: new Date().toISOString(),
			variables: {
				name: 'Bench Caller',
				phone: '+14155550100',
				email: 'caller@example.com',
				intent: 'book',
			},
		}),
		headers: {
			'content-type': 'application/json',
			'x-voiceai-delivery': `dlv_${randomUUID()}`,
			'x-voiceai-attempt': '1',
		},
	};
}

/** Answers per receiver URL: 200s (each starts one execution) and anything else (n8n overloaded). */
export const answered = new Map<string, { ok: number; failed: number; lastFailure?: number }>();

/** Posts one delivery; returns the time to n8n's answer (ms), or undefined when it was not 200. */
async function post(
	url: string,
	extraHeaders: Record<string, string> = {},
): Promise<number | undefined> {
	const { body, headers } = delivery();
	const started = performance.now();
	const response = await fetch(url, {
		method: 'POST',
		headers: { ...headers, ...extraHeaders },
		body,
	});
	await response.arrayBuffer();
	const count = answered.get(url) ?? { ok: 0, failed: 0 };
	answered.set(url, count);
	if (response.status !== 200) {
		count.failed++;
		count.lastFailure = response.status;
		return undefined;
	}
	count.ok++;
	return performance.now() - started;
}

/** Sends `count` deliveries through `send`, `inFlight` at a time. */
export async function sendInParallel(
	count: number,
	inFlight: number,
	send: () => Promise<unknown>,
): Promise<void> {
	let next = 0;
	const lane = async () => {
		while (next < count) {
			next++;
			await send();
		}
	};
	await Promise.all(Array.from({ length: inFlight }, lane));
}

/** What publish() needs: a Stack, or the same parts of the queue deployment (its balancer as n8n). */
export type PublishTarget = Pick<Stack, 'api' | 'admin' | 'credential' | 'org'> & {
	sandbox: Pick<Stack['sandbox'], 'baseUrl' | 'orgs'>;
	n8n: { webhookBase: string };
};

export async function executionCount(stack: Stack, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	return (
		await stack.api.request<{ count: number }>('GET', `/rest/executions?filter=${filter}&limit=1`)
	).count;
}

/**
 * Publishes one workflow per receiver and returns the URL each is called at (a trigger's with its
 * token). Each trigger gets an account of its own: one account has one webhook, held by one workflow.
 */
export async function publish(stack: PublishTarget, list: Receiver[]): Promise<Published> {
	const urls: Record<string, string> = {};
	const send: Record<string, () => Promise<number | undefined>> = {};
	const workflowIds: Record<string, string> = {};
	let account = 0;
	for (const receiver of list) {
		if (receiver.typeVersion === undefined) {
			const path = `bench-webhook-${randomUUID()}`;
			const auth = receiver.headerAuth
				? await stack.api.createCredential('Bench Header Auth', 'httpHeaderAuth', HEADER_AUTH)
				: undefined;
			const node = {
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path,
					responseMode: 'onReceived',
					...(auth ? { authentication: 'headerAuth' } : {}),
					options: {},
				},
				...(auth ? { credentials: { httpHeaderAuth: auth } } : {}),
			};
			const saved = await stack.api.importWorkflow(
				noOpWorkflow(`Bench: ${receiver.label}`, node),
				auth ? { httpHeaderAuth: auth } : {},
			);
			await stack.api.activateWorkflow(saved);
			const url = `${stack.n8n.webhookBase.replace(/\/+$/, '')}/webhook/${path}`;
			const headers = auth ? { [HEADER_AUTH.name]: HEADER_AUTH.value } : {};
			urls[receiver.key] = url;
			send[receiver.key] = () => post(url, headers);
			workflowIds[receiver.key] = saved.id;
			continue;
		}
		const org = stack.sandbox.orgs[account++];
		if (org === undefined)
			throw new Error('the sandbox has fewer organizations than trigger versions');
		const credential: CredentialRef =
			org.id === stack.org.id
				? stack.credential
				: await stack.api.createVoiceAiCredential(
						{ baseUrl: stack.sandbox.baseUrl, apiKey: org.apiKey },
						`Voice AI sandbox (${org.name})`,
					);
		const node = {
			name: 'Voice AI Trigger',
			type: NODE_TYPES.trigger,
			typeVersion: receiver.typeVersion,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { output: 'variables', options: {}, whenOwnerUnknown: 'listen' },
			credentials: { voiceAiApi: credential },
		};
		const saved = await stack.api.importWorkflow(
			noOpWorkflow(`Bench: Voice AI Trigger ${receiver.typeVersion}`, node),
			{ voiceAiApi: credential },
		);
		await stack.api.activateWorkflow(saved);
		const webhookId = saved.nodes.find((n) => n.name === 'Voice AI Trigger')?.webhookId ?? '';
		// Publishing returns before the trigger has registered its URL (with the token) at the service.
		const url = await pollUntil(
			async () => {
				const registered = await stack.admin.accountWebhook(org.id);
				return registered?.includes(webhookId) ? registered : undefined;
			},
			{ what: `trigger ${receiver.typeVersion} to register its URL at the sandbox` },
		);
		urls[receiver.key] = url;
		send[receiver.key] = () => post(url);
		workflowIds[receiver.key] = saved.id;
	}
	for (const receiver of list) {
		await pollUntil(async () => (await send[receiver.key]()) !== undefined, {
			what: `${receiver.label} to answer 200`,
		});
		// The 404s before the URL went live are not n8n failing a delivery.
		answered.set(urls[receiver.key], { ok: answered.get(urls[receiver.key])?.ok ?? 0, failed: 0 });
	}
	return { urls, send, workflowIds };
}
