/** The sandbox's admin API (sandbox/, described in sandbox/README.md) as the e2e suite uses it. */

export interface SandboxHandle {
	baseUrl: string;
	adminToken: string;
}

export interface Delivery {
	id: string;
	conversationId: string;
	target: 'account' | 'chatbot';
	url: string;
	status: 'pending' | 'delivered' | 'failed';
	attempts: number;
	responseCodes: number[];
}

export class SandboxAdmin {
	constructor(private readonly sandbox: SandboxHandle) {}

	async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.sandbox.baseUrl}${path}`, {
			method,
			headers: {
				'X-Sandbox-Admin': this.sandbox.adminToken,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`sandbox ${method} ${path} → HTTP ${res.status}: ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	async state<T = Record<string, unknown>>(org: string): Promise<T> {
		return await this.request<T>('GET', `/__sandbox/orgs/${org}/state`);
	}

	/** Runs `task` while GET /sip answers the org in the given shape (sandbox/README.md), then the documented one. */
	async withSipGetShape<T>(org: string, shape: string, task: () => Promise<T>): Promise<T> {
		await this.request('PUT', `/__sandbox/orgs/${org}/sip-get-shape`, { shape });
		try {
			return await task();
		} finally {
			await this.request('PUT', `/__sandbox/orgs/${org}/sip-get-shape`, { shape: 'documented' });
		}
	}

	/** The account webhook URL registered for the org (what the trigger set), or null. */
	async accountWebhook(org: string): Promise<string | null> {
		const state = await this.state<{ webhook: unknown }>(org);
		const webhook = state.webhook as string | { url?: string } | null | undefined;
		if (webhook && typeof webhook === 'object') return webhook.url ?? null;
		return webhook ?? null;
	}

	async simulateConversation(
		org: string,
		body: {
			agentId?: string;
			chatbotId?: string;
			variables: Record<string, unknown>;
			conversationId?: string;
		},
	): Promise<{ conversationId: string; deliveries: unknown[] }> {
		return await this.request('POST', `/__sandbox/orgs/${org}/conversations`, body);
	}

	async deliveries(org: string): Promise<Delivery[]> {
		return await this.request<Delivery[]>(
			'GET',
			`/__sandbox/deliveries?org=${encodeURIComponent(org)}`,
		);
	}
}
