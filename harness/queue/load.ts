/**
 * Load through the balancer as the service sends it: the sandbox completes conversations and delivers
 * them to the account webhook (the published trigger), at most `concurrency` deliveries in flight,
 * retrying by its stated policy (sandbox/delivery.ts). A share of the conversations is completed a
 * second time a few positions later (same conversation_id), so with round-robin the copy often reaches
 * the other webhook processor while the first is still running.
 */
import type { Client } from 'pg';

import { startSandbox, type SandboxOptions } from '../../sandbox';
import { SandboxAdmin, type Delivery } from '../sandboxAdmin';

export interface LoadPlan {
	/** Deliveries in all, repeats included. */
	total: number;
	/** Share of `total` that repeats an earlier conversation (0.1: 10%). */
	repeatShare: number;
	/** Conversation ids get this prefix, so runs on one CRM table never collide. */
	prefix: string;
}

/** The order of conversation ids to complete: each repeat follows its original 1 to 8 positions later. */
export function loadOrder(plan: LoadPlan): { order: string[]; distinct: number } {
	const repeats = Math.round(plan.total * plan.repeatShare);
	const distinct = plan.total - repeats;
	const order = Array.from(
		{ length: distinct },
		(_, i) => `${plan.prefix}-${String(i).padStart(5, '0')}`,
	);
	const step = Math.max(1, Math.floor(distinct / Math.max(1, repeats)));
	for (let r = 0; r < repeats; r++) {
		const original = order.indexOf(`${plan.prefix}-${String(r * step).padStart(5, '0')}`);
		order.splice(original + 1 + (r % 8), 0, order[original]);
	}
	return { order, distinct };
}

export type QueueSandbox = Awaited<ReturnType<typeof startSandbox>> & { admin: SandboxAdmin };

export async function startLoadSandbox(options: SandboxOptions): Promise<QueueSandbox> {
	const sandbox = await startSandbox({ seed: 'demo', ...options });
	return Object.assign(sandbox, { admin: new SandboxAdmin(sandbox) });
}

/** Completes the conversations in order and waits until no delivery is pending. */
export async function deliverLoad(
	sandbox: QueueSandbox,
	org: string,
	agentId: string,
	order: string[],
	{
		timeoutMs = 600_000,
		onStarted,
	}: { timeoutMs?: number; onStarted?: (count: number) => void } = {},
): Promise<Delivery[]> {
	const ids = new Set(order);
	for (let i = 0; i < order.length; i++) {
		await sandbox.admin.simulateConversation(org, {
			agentId,
			conversationId: order[i],
			variables: {
				name: `Caller ${order[i]}`,
				phone: `+1415555${String(i % 10000).padStart(4, '0')}`,
			},
		});
		onStarted?.(i + 1);
	}
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const mine = (await sandbox.admin.deliveries(org)).filter((d) => ids.has(d.conversationId));
		if (mine.every((d) => d.status !== 'pending')) return mine;
		if (Date.now() > deadline)
			throw new Error(`deliveries still pending after ${timeoutMs / 1000} s`);
		await new Promise((r) => setTimeout(r, 500));
	}
}

export interface ExecutionCounts {
	total: number;
	byStatus: Record<string, number>;
}

export async function executionCounts(n8nDb: Client, workflowId: string): Promise<ExecutionCounts> {
	const { rows } = await n8nDb.query<{ status: string; count: string }>(
		'SELECT status, count(*) AS count FROM execution_entity WHERE "workflowId" = $1 GROUP BY status',
		[workflowId],
	);
	const byStatus = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
	return { total: Object.values(byStatus).reduce((a, b) => a + b, 0), byStatus };
}

/**
 * Waits until the workflow has no execution left running. Executions no worker ever started (never
 * queued by a webhook processor that exited holding the request, or queued and stranded by a worker
 * that stopped) stay "new" until n8n's queue recovery marks them crashed, every 180 minutes by
 * default (N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL): once only "new" ones are left and nothing has
 * changed for `quietMs`, they are returned as left new.
 */
export async function settledExecutions(
	n8nDb: Client,
	workflowId: string,
	{ timeoutMs = 240_000, quietMs = 60_000 } = {},
): Promise<ExecutionCounts & { leftNew: string[] }> {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	let unchangedSince = Date.now();
	for (;;) {
		const counts = await executionCounts(n8nDb, workflowId);
		const fresh = counts.byStatus.new ?? 0;
		const open = fresh + (counts.byStatus.running ?? 0) + (counts.byStatus.waiting ?? 0);
		if (open === 0) return { ...counts, leftNew: [] };
		const now = Date.now();
		const seen = JSON.stringify(counts.byStatus);
		if (seen !== last) [last, unchangedSince] = [seen, now];
		if (open === fresh && now - unchangedSince >= quietMs) {
			const { rows } = await n8nDb.query<{ id: string }>(
				`SELECT id FROM execution_entity WHERE "workflowId" = $1 AND status = 'new'`,
				[workflowId],
			);
			return { ...counts, leftNew: rows.map((row) => String(row.id)) };
		}
		if (now > deadline) {
			throw new Error(
				`${open} execution(s) still open after ${timeoutMs / 1000} s: ${JSON.stringify(counts.byStatus)}`,
			);
		}
		await new Promise((r) => setTimeout(r, 1_000));
	}
}

/**
 * Finds the conversation id (`prefix`-digits) in an execution's stored data. Prefixes are letters,
 * digits and hyphens (loadOrder), so they need no escaping.
 */
function conversationFinder(prefix: string): (data: string) => string | undefined {
	const pattern = new RegExp(`${prefix}-\\d+`);
	return (data) => pattern.exec(data)?.[0];
}

/** The conversation (an id starting with `prefix`) each execution was started with, from its stored data. */
export async function conversationsOf(
	n8nDb: Client,
	executionIds: string[],
	prefix: string,
): Promise<Map<string, string>> {
	const conversationIn = conversationFinder(prefix);
	const { rows } = await n8nDb.query<{ id: string; data: string }>(
		`SELECT "executionId" AS id, data FROM execution_data WHERE "executionId" = ANY($1::int[])`,
		[executionIds.map(Number)],
	);
	const found = new Map<string, string>();
	for (const row of rows) {
		const conversation = conversationIn(row.data);
		if (conversation) found.set(String(row.id), conversation);
	}
	return found;
}

export interface ExecutionTimings {
	/** From enqueued (created) to started on a worker: median and 90th percentile, in ms. */
	queueWaitMs: { median: number; p90: number };
	/** From started to finished on the worker: median, in ms. */
	runMs: number;
}

/** How long the workflow's finished executions waited in the queue for a worker, and ran. */
export async function executionTimings(
	n8nDb: Client,
	workflowId: string,
): Promise<ExecutionTimings> {
	const { rows } = await n8nDb.query<{ wait50: number; wait90: number; run50: number }>(
		`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY wait) AS wait50,
		        percentile_cont(0.9) WITHIN GROUP (ORDER BY wait) AS wait90,
		        percentile_cont(0.5) WITHIN GROUP (ORDER BY run) AS run50
		 FROM (SELECT extract(epoch FROM "startedAt" - "createdAt") * 1000 AS wait,
		              extract(epoch FROM "stoppedAt" - "startedAt") * 1000 AS run
		       FROM execution_entity
		       WHERE "workflowId" = $1 AND "startedAt" IS NOT NULL AND "stoppedAt" IS NOT NULL) timings`,
		[workflowId],
	);
	const round = (value: number | null) => Math.round(Number(value ?? 0));
	return {
		queueWaitMs: { median: round(rows[0]?.wait50), p90: round(rows[0]?.wait90) },
		runMs: round(rows[0]?.run50),
	};
}

/** Ids of the workflow's executions n8n marked failed (error or crashed). */
export async function failedExecutionIds(n8nDb: Client, workflowId: string): Promise<string[]> {
	const { rows } = await n8nDb.query<{ id: string }>(
		`SELECT id FROM execution_entity WHERE "workflowId" = $1 AND status IN ('error', 'crashed')`,
		[workflowId],
	);
	return rows.map((row) => String(row.id));
}

/**
 * Ids of the workflow's failed executions that no worker ran: Bull's stalled-job check failed their
 * job (`maxStalledCount: 0`) and the webhook processor that queued it, still waiting on the job,
 * marked the run failed with n8n's MaxStalledCountError (`dist/workflow-runner.js`).
 */
export async function stalledExecutionIds(n8nDb: Client, workflowId: string): Promise<string[]> {
	const { rows } = await n8nDb.query<{ id: string }>(
		`SELECT e.id FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id
		 WHERE e."workflowId" = $1 AND e.status IN ('error', 'crashed')
		   AND d.data LIKE '%failed to be processed too many times%'`,
		[workflowId],
	);
	return rows.map((row) => String(row.id));
}

/**
 * Every second, reads the conversation (an id starting with `prefix`) of each open execution of the
 * workflow not seen yet, from the data the webhook processor stored with it, into `into`.
 */
export function sampleOpenExecutions(
	n8nDb: Client,
	workflowId: string,
	prefix: string,
	into: Map<string, string>,
): { stop: () => Promise<void> } {
	const conversationIn = conversationFinder(prefix);
	let stopped = false;
	const loop = (async () => {
		while (!stopped) {
			try {
				const { rows } = await n8nDb.query<{ id: string; data: string }>(
					`SELECT e.id, d.data FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id
					 WHERE e."workflowId" = $1 AND e.status IN ('new', 'running') AND NOT (e.id = ANY($2::int[]))`,
					[workflowId, [...into.keys()].map(Number)],
				);
				for (const row of rows) {
					const conversation = conversationIn(row.data);
					if (conversation) into.set(String(row.id), conversation);
				}
			} catch {
				// the next round reads them again
			}
			await new Promise((r) => setTimeout(r, 1_000));
		}
	})();
	return {
		stop: async () => {
			stopped = true;
			await loop;
		},
	};
}
