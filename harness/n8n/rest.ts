/** n8n's REST API as the editor uses it: owner, credentials, workflows, publishing, executions, data tables. */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { CREDENTIAL_TYPE, DEFAULT_OWNER, type Owner, n8nDir, n8nVersion } from './lines';
import { pollUntil } from './wait';

const PAGE = 100;
const EXECUTION_STATUSES = [
	'canceled',
	'crashed',
	'error',
	'new',
	'running',
	'success',
	'unknown',
	'waiting',
];

export interface WorkflowJson {
	name: string;
	nodes: Array<{
		name: string;
		type: string;
		webhookId?: string;
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		[key: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

export interface SavedWorkflow {
	id: string;
	versionId: string;
	name: string;
	active: boolean;
	nodes: WorkflowJson['nodes'];
}

export interface CredentialRef {
	id: string;
	name: string;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt?: string;
}

export interface ExecutionDetail extends ExecutionSummary {
	/** Output items (json only) of each node's last run. */
	outputs: Record<string, Array<Record<string, unknown>>>;
	/** The same items with the input item each is paired with. */
	items: Record<string, Array<{ json: Record<string, unknown>; pairedItem?: unknown }>>;
	/** Error message of the run, if it failed. */
	error?: string;
	/** The error of each node whose last run failed (also with onError set), as n8n records it. */
	nodeErrors: Record<string, { message?: string; description?: string }>;
	lastNodeExecuted?: string;
}

export class N8nApiError extends Error {
	constructor(
		readonly status: number,
		readonly body: string,
		what: string,
	) {
		super(`${what} → HTTP ${status}: ${body.slice(0, 500)}`);
	}
}

const BROWSER_ID = 'voiceai-e2e-harness';

export class N8nApi {
	private cookie = '';
	private projectIdCache?: string;

	constructor(
		readonly baseUrl: string,
		readonly owner: Owner = DEFAULT_OWNER,
	) {}

	/** Creates the owner account of a fresh n8n and returns a logged-in client. */
	static async setupOwner(baseUrl: string, owner: Owner = DEFAULT_OWNER): Promise<N8nApi> {
		const api = new N8nApi(baseUrl, owner);
		await api.request('POST', '/rest/owner/setup', owner);
		return api;
	}

	async login(): Promise<void> {
		await this.send('POST', '/rest/login', {
			emailOrLdapLoginId: this.owner.email,
			password: this.owner.password,
		});
	}

	/**
	 * One REST call. A 401 to a logged-in call logs in again and sends it once more, as the editor sends
	 * a user back to sign in: n8n 2.40.7 once refused the owner's first cookie right after setup (CI of
	 * stop 54), which no user of this package could cause.
	 */
	async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const loggedIn = this.cookie !== '';
		try {
			return await this.send<T>(method, path, body);
		} catch (error) {
			if (!(error instanceof N8nApiError) || error.status !== 401 || !loggedIn) throw error;
			console.warn(`[harness] ${error.message}; logging in again`);
			await this.login();
			return await this.send<T>(method, path, body);
		}
	}

	private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
		const headers: Record<string, string> = {
			'browser-id': BROWSER_ID,
			accept: 'application/json',
		};
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const res = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(60_000),
		});
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await res.text();
		if (!res.ok) throw new N8nApiError(res.status, text, `${method} ${path}`);
		if (!text) return undefined as T;
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	/** Node type names n8n has loaded (`GET /types/nodes.json`). */
	async nodeTypeNames(): Promise<string[]> {
		const res = await fetch(`${this.baseUrl}/types/nodes.json`, {
			headers: { cookie: this.cookie, 'browser-id': BROWSER_ID },
		});
		if (!res.ok) throw new N8nApiError(res.status, await res.text(), 'GET /types/nodes.json');
		const types = (await res.json()) as Array<{ name: string }>;
		return [...new Set(types.map((t) => t.name))];
	}

	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<CredentialRef> {
		const created = await this.request<{ id: string; name: string }>('POST', '/rest/credentials', {
			name,
			type,
			data,
		});
		return { id: created.id, name: created.name };
	}

	async createVoiceAiCredential(
		data: { baseUrl: string; apiKey: string; authHeader?: 'bearer' | 'xApiKey' },
		name = 'Voice AI (sandbox)',
	): Promise<CredentialRef> {
		return await this.createCredential(name, CREDENTIAL_TYPE, { authHeader: 'bearer', ...data });
	}

	/**
	 * Creates a workflow from JSON. Every node credential whose type is a key of `credentials` is
	 * pointed at the given credential (example files carry placeholder ids), and webhook nodes get a
	 * fresh webhookId as the editor's import does, so one file can be imported more than once.
	 */
	private imports: Promise<unknown> = Promise.resolve();

	async importWorkflow(
		workflow: WorkflowJson,
		credentials: Record<string, CredentialRef> = {},
	): Promise<SavedWorkflow> {
		const nodes = workflow.nodes.map((original) => {
			const node = original.webhookId ? { ...original, webhookId: randomUUID() } : original;
			if (!node.credentials) return node;
			const mapped = Object.fromEntries(
				Object.entries(node.credentials).map(([type, ref]) => [type, credentials[type] ?? ref]),
			);
			return { ...node, credentials: mapped };
		});
		const body = {
			name: workflow.name,
			nodes,
			connections: workflow.connections,
			settings: workflow.settings ?? { executionOrder: 'v1' },
			active: false,
		};
		// n8n 1.x on SQLite fails one of two imports at once ("no such savepoint: typeorm_2"): one at a time.
		const imported = this.imports.then(
			async () => await this.request<SavedWorkflow>('POST', '/rest/workflows', body),
		);
		this.imports = imported.catch(() => undefined);
		return await imported;
	}

	/** Production URL of a webhook node of a saved workflow (`<base>/webhook/<webhookId>/<path>`). */
	productionWebhookUrl(
		webhookBase: string,
		workflow: SavedWorkflow,
		nodeName: string,
		path = 'webhook',
	): string {
		const node = workflow.nodes.find((n) => n.name === nodeName);
		if (!node?.webhookId) throw new Error(`node "${nodeName}" has no webhookId`);
		return `${webhookBase.replace(/\/+$/, '')}/webhook/${node.webhookId}/${path}`;
	}

	async getWorkflow(id: string): Promise<SavedWorkflow> {
		return await this.request<SavedWorkflow>('GET', `/rest/workflows/${id}`);
	}

	/** Publishes the workflow (its triggers go live) and waits until n8n reports it active. */
	async activateWorkflow(workflow: { id: string }): Promise<SavedWorkflow> {
		const current = await this.getWorkflow(workflow.id);
		await this.request('POST', `/rest/workflows/${workflow.id}/activate`, {
			versionId: current.versionId,
		});
		return await pollUntil(
			async () => {
				const wf = await this.getWorkflow(workflow.id);
				return wf.active ? wf : undefined;
			},
			{ timeoutMs: 15_000, what: `workflow ${workflow.id} active` },
		);
	}

	/**
	 * Waits until n8n 2.x has applied a publish it runs in the background: its publication status is
	 * published, partial or failed (not in progress). n8n 1.x activates before answering (no such route).
	 */
	async publicationSettled(workflow: { id: string }): Promise<void> {
		if (n8nVersion().startsWith('1.')) return;
		await pollUntil(
			async () => {
				const { status } = await this.request<{ status: string }>(
					'GET',
					`/rest/workflows/${workflow.id}/publication-status`,
				);
				return ['published', 'partial', 'failed'].includes(status) || undefined;
			},
			{ timeoutMs: 60_000, what: `the publication of workflow ${workflow.id} to end` },
		);
	}

	async deactivateWorkflow(workflow: { id: string }): Promise<void> {
		await this.request('POST', `/rest/workflows/${workflow.id}/deactivate`, {});
	}

	/**
	 * Runs a workflow as "Execute workflow" in the editor does, from the given trigger node, and waits
	 * for the execution to finish.
	 */
	async runWorkflow(
		workflow: { id: string },
		triggerNodeName: string,
		{ timeoutMs = 60_000 } = {},
	): Promise<ExecutionDetail> {
		const started = await this.request<{ executionId?: string; waitingForWebhook?: boolean }>(
			'POST',
			`/rest/workflows/${workflow.id}/run`,
			await this.manualRunBody(workflow, triggerNodeName),
		);
		if (!started.executionId)
			throw new Error(`n8n did not start a run: ${JSON.stringify(started)}`);
		const id = started.executionId;
		await pollUntil(
			async () => {
				const ex = await this.request<{ finished: boolean; status: string }>(
					'GET',
					`/rest/executions/${id}`,
				);
				return ex && !['new', 'running', 'waiting'].includes(ex.status);
			},
			{ timeoutMs, what: `execution ${id} to finish` },
		);
		return await this.getExecution(id);
	}

	/**
	 * "Listen for test event" on a trigger node: n8n registers the node's test webhook and waits for
	 * one event (the run then shows up in the executions as mode "manual").
	 */
	async listenForTestEvent(workflow: { id: string }, triggerNodeName: string): Promise<void> {
		const answer = await this.request<{ waitingForWebhook?: boolean }>(
			'POST',
			`/rest/workflows/${workflow.id}/run`,
			await this.manualRunBody(workflow, triggerNodeName),
		);
		if (!answer?.waitingForWebhook)
			throw new Error(`n8n is not listening for a test event: ${JSON.stringify(answer)}`);
	}

	/**
	 * Body of a manual run. n8n 1.x runs the workflow the editor sends (`workflowData`); 2.x loads the
	 * saved one and ignores that field.
	 */
	private async manualRunBody(
		workflow: { id: string },
		triggerNodeName: string,
	): Promise<Record<string, unknown>> {
		return {
			workflowData: await this.request('GET', `/rest/workflows/${workflow.id}`),
			triggerToStartFrom: { name: triggerNodeName },
		};
	}

	/**
	 * Every execution (of the workflow), newest first. n8n 2.41 refuses pages over 100, and n8n reads
	 * `lastId` only with a status filter: later pages name every status.
	 */
	async listExecutions(workflowId?: string): Promise<ExecutionSummary[]> {
		const all: ExecutionSummary[] = [];
		let lastId: string | undefined;
		for (;;) {
			const filter = {
				...(workflowId ? { workflowId } : {}),
				...(lastId ? { status: EXECUTION_STATUSES } : {}),
			};
			const page = await this.request<{ results: ExecutionSummary[] }>(
				'GET',
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify(filter))}&limit=${PAGE}` +
					(lastId ? `&lastId=${lastId}` : ''),
			);
			all.push(
				...page.results.map((e) => ({ ...e, id: String(e.id), workflowId: String(e.workflowId) })),
			);
			if (page.results.length < PAGE) return all;
			lastId = all[all.length - 1].id;
		}
	}

	/** Waits until the workflow has at least `count` finished executions; returns them all, oldest first. */
	async waitForExecutions(
		workflowId: string,
		{ count = 1, timeoutMs = 30_000 } = {},
	): Promise<ExecutionSummary[]> {
		return await pollUntil(
			async () => {
				const all = await this.listExecutions(workflowId);
				const done = all.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
				return done.length >= count ? done.sort((a, b) => Number(a.id) - Number(b.id)) : undefined;
			},
			{ timeoutMs, what: `${count} execution(s) of workflow ${workflowId}` },
		);
	}

	async getExecution(id: string): Promise<ExecutionDetail> {
		const raw = await this.request<ExecutionSummary & { data: string; workflowId: string }>(
			'GET',
			`/rest/executions/${id}`,
		);
		const data = parseFlatted(raw.data) as {
			resultData: {
				runData: Record<
					string,
					Array<{
						data?: {
							main?: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }> | null>;
						};
						error?: { message?: string; description?: string };
					}>
				>;
				error?: { message?: string; description?: string };
				lastNodeExecuted?: string;
			};
		};
		const outputs: ExecutionDetail['outputs'] = {};
		const items: ExecutionDetail['items'] = {};
		const nodeErrors: ExecutionDetail['nodeErrors'] = {};
		for (const [node, runs] of Object.entries(data.resultData.runData ?? {})) {
			const last = runs[runs.length - 1];
			items[node] = (last?.data?.main ?? []).flatMap((branch) =>
				(branch ?? []).map(({ json, pairedItem }) => ({ json, pairedItem })),
			);
			outputs[node] = items[node].map((item) => item.json);
			if (last?.error)
				nodeErrors[node] = { message: last.error.message, description: last.error.description };
		}
		const error = data.resultData.error;
		return {
			id: String(raw.id),
			workflowId: String(raw.workflowId),
			mode: raw.mode,
			status: raw.status,
			startedAt: raw.startedAt,
			stoppedAt: raw.stoppedAt,
			outputs,
			items,
			nodeErrors,
			error: error ? [error.message, error.description].filter(Boolean).join(': ') : undefined,
			lastNodeExecuted: data.resultData.lastNodeExecuted,
		};
	}

	async personalProjectId(): Promise<string> {
		this.projectIdCache ??= (
			await this.request<{ id: string }>('GET', '/rest/projects/personal')
		).id;
		return this.projectIdCache;
	}

	async createDataTable(
		name: string,
		columns: Array<{ name: string; type: 'string' | 'number' | 'boolean' | 'date' }>,
	): Promise<{ id: string; name: string }> {
		const project = await this.personalProjectId();
		return await this.request('POST', `/rest/projects/${project}/data-tables`, { name, columns });
	}

	async dataTableRows(tableId: string): Promise<Array<Record<string, unknown>>> {
		const project = await this.personalProjectId();
		const page = await this.request<{ data: Array<Record<string, unknown>> }>(
			'GET',
			`/rest/projects/${project}/data-tables/${tableId}/rows?take=1000`,
		);
		return page.data;
	}
}

function parseFlatted(text: string): unknown {
	const requireFromN8n = createRequire(join(n8nDir(), 'node_modules', 'n8n', 'package.json'));
	const flatted = requireFromN8n('flatted') as { parse(text: string): unknown };
	return flatted.parse(text);
}
