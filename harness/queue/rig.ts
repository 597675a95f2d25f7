/**
 * The queue deployment, the sandbox (as a service delivering to it) and the CRM table together, and
 * one scenario run with its figures. Used by the queue suite (test/queue) and the benchmark (bench/).
 *
 *   const rig = await QueueRig.start({ root });
 *   const figures = await rig.run({ name: 'a', passOnce: true, total: 2000, repeatShare: 0.1 });
 *   await rig.close();
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'pg';

import { pollUntil, type CredentialRef, type SavedWorkflow } from '../n8n';
import { CRM_DATABASE, createCrmTable, crmFigures, crmWorkflow } from './crm';
import {
	startQueueDeployment,
	type QueueDeployment,
	type QueueDeploymentOptions,
} from './deployment';
import type { Delivery } from '../sandboxAdmin';
import {
	deliverLoad,
	conversationsOf,
	executionCounts,
	executionTimings,
	failedExecutionIds,
	stalledExecutionIds,
	loadOrder,
	sampleOpenExecutions,
	settledExecutions,
	startLoadSandbox,
	type ExecutionCounts,
	type ExecutionTimings,
	type QueueSandbox,
} from './load';
import { explainMissing } from './missing';
import { balancerLog, balancerLogEnd } from './servers';

const TRIGGER = 'Conversation completed';

export interface ScenarioOptions {
	name: string;
	passOnce: boolean;
	respondWhen?: 'onReceived' | 'lastNode';
	total: number;
	repeatShare: number;
	/** Runs once this share of the deliveries has been answered (e.g. 0.3), alongside the load. */
	fault?: { atShare: number; run: (rig: QueueRig) => Promise<void> };
}

export interface ScenarioFigures {
	scenario: string;
	deliveries: number;
	/** Deliveries the service saw answered 2xx. */
	delivered: number;
	/** Deliveries the service gave up on after its last attempt. */
	undelivered: number;
	/** Delivery attempts beyond the first. */
	retries: number;
	distinct: number;
	executions: number;
	executionsByStatus: Record<string, number>;
	rows: number;
	writtenTwice: number;
	/** Conversations the service delivered once that were written more than once (a fault's duplicate). */
	writtenTwiceDeliveredOnce: number;
	missing: number;
	/** Executions n8n marked failed (error or crashed). */
	failed: number;
	/** Of them, runs whose conversation was read from n8n's database while they were still open. */
	failedIdentified: number;
	/** Failed runs whose conversation another run (its repeat or its retry) wrote anyway. */
	failedWrittenByAnother: number;
	/** Distinct conversations of failed runs that no run wrote. */
	failedUnwritten: number;
	/** Missing conversations that were not the conversation of a failed run. */
	missingNotFailed: number;
	/**
	 * Executions n8n created but never queued (left "new", and no webhook processor logged enqueuing
	 * them): a webhook processor exited holding the request, which the service saw fail and sent again.
	 */
	neverQueued: number;
	/** Of them, those whose conversation another run wrote. */
	neverQueuedWrittenByAnother: number;
	/**
	 * Executions a webhook processor queued that no worker ever started (left "new"): Bull handed the
	 * job to a worker in the instant that worker paused for its shutdown (see docs/scaling.md).
	 */
	stranded: number;
	/**
	 * Failed executions whose job Bull's stalled check failed (n8n's MaxStalledCountError, set by the
	 * processor that queued it): the jobs a killed worker held, or one a stopping worker was handed in
	 * the instant it paused while the processor that queued it was still up.
	 */
	stalled: number;
	/** Of them, those whose conversation another run wrote. */
	strandedWrittenByAnother: number;
	/** Distinct conversations of stranded runs that no run wrote. */
	strandedUnwritten: number;
	/** Distinct conversations of stranded or stalled runs that no run wrote. */
	lostInQueue: number;
	/** Missing conversations that were not the conversation of a stranded or a stalled run. */
	missingNotLostInQueue: number;
	/**
	 * Webhook requests a processor answered while it was starting (spawned, /healthz/readiness not yet
	 * 200): n8n answers them 200 "n8n is starting up" or 404 and runs nothing.
	 */
	answeredWhileStarting: number;
	/** Repeated conversations whose copies reached different webhook processors. */
	repeatsAcrossProcessors: number;
	/** From the first delivery until the service had its last answer. */
	seconds: number;
	/** From the first delivery until no execution was left running. */
	settledSeconds: number;
	/** Deliveries per second until every execution had finished. */
	deliveriesPerSecond: number;
	/** How long executions waited in the queue for a worker, and ran. */
	timings: ExecutionTimings;
	/** For each missing conversation (the first ten): its deliveries, runs and Pass Once record. */
	missingExplained: string[];
}

export class QueueRig {
	private active?: SavedWorkflow;
	/** The account's API key and every webhook token the trigger registered, by name. */
	readonly secrets: Record<string, string> = {};

	private constructor(
		readonly deployment: QueueDeployment,
		readonly sandbox: QueueSandbox,
		readonly org: string,
		readonly agentId: string,
		readonly voiceAiCredential: CredentialRef,
		readonly postgresCredential: CredentialRef,
		readonly n8nDb: Client,
		readonly crmDb: Client,
		private readonly ownsRoot: string | undefined,
	) {}

	static async start(
		options: Partial<QueueDeploymentOptions> & {
			deliveryConcurrency?: number;
			deliveryAttempts?: number;
		} = {},
	): Promise<QueueRig> {
		const ownsRoot = options.root ? undefined : mkdtempSync(join(tmpdir(), 'voiceai-queue-'));
		const root = options.root ?? (ownsRoot as string);
		const [sandboxStart, deploymentStart] = await Promise.allSettled([
			startLoadSandbox({
				deliveryConcurrency: options.deliveryConcurrency ?? 40,
				deliveryRetry: { attempts: options.deliveryAttempts ?? 4, baseDelayMs: 500 },
				// A shared 2-core machine under load answers slowly; the policy, not the timeout, is under test.
				deliveryTimeoutMs: 60_000,
			}),
			startQueueDeployment({ ...options, root }),
		]);
		if (sandboxStart.status === 'rejected' || deploymentStart.status === 'rejected') {
			if (sandboxStart.status === 'fulfilled') await sandboxStart.value.close();
			if (deploymentStart.status === 'fulfilled') await deploymentStart.value.close();
			throw sandboxStart.status === 'rejected'
				? sandboxStart.reason
				: (deploymentStart as PromiseRejectedResult).reason;
		}
		const sandbox = sandboxStart.value;
		const deployment = deploymentStart.value;
		try {
			const acme = sandbox.orgs.find((o) => o.id === 'org_acme') ?? sandbox.orgs[0];
			const agents = (await sandbox.admin.state<{ agents: Array<{ id: string }> }>(acme.id)).agents;
			const voiceAi = await deployment.api.createVoiceAiCredential({
				baseUrl: sandbox.baseUrl,
				apiKey: acme.apiKey,
			});
			const postgres = await deployment.api.createCredential('CRM (Postgres)', 'postgres', {
				host: deployment.postgres.host,
				port: deployment.postgres.port,
				database: CRM_DATABASE,
				user: deployment.postgres.user,
				password: deployment.postgres.password,
				ssl: 'disable',
				maxConnections: 20,
			});
			const [n8nDb, crmDb] = await Promise.all([
				deployment.sql('n8n'),
				deployment.sql(CRM_DATABASE),
			]);
			await createCrmTable(crmDb);
			const rig = new QueueRig(
				deployment,
				sandbox,
				acme.id,
				agents[0].id,
				voiceAi,
				postgres,
				n8nDb,
				crmDb,
				ownsRoot,
			);
			rig.secrets['API key'] = acme.apiKey;
			return rig;
		} catch (error) {
			await Promise.allSettled([deployment.close(), sandbox.close()]);
			throw error;
		}
	}

	/** Imports the CRM workflow, publishes it (unpublishing the previous one) and waits for the account webhook. */
	async publish(options: {
		passOnce: boolean;
		respondWhen?: 'onReceived' | 'lastNode';
		name: string;
	}): Promise<SavedWorkflow> {
		const { api } = this.deployment;
		if (this.active) await api.deactivateWorkflow(this.active);
		const workflow = await api.importWorkflow(
			crmWorkflow({
				...options,
				voiceAiCredential: this.voiceAiCredential,
				postgresCredential: this.postgresCredential,
			}),
		);
		await api.activateWorkflow(workflow);
		const url = api.productionWebhookUrl(this.deployment.balancerUrl, workflow, TRIGGER);
		await this.accountWebhookAt(url, `webhook token of ${options.name}`);
		this.active = workflow;
		return workflow;
	}

	/**
	 * Waits until the account webhook points at `url` (with its token), and returns what is registered.
	 * `tokenName`: records the token in `secrets` under that name.
	 */
	async accountWebhookAt(url: string, tokenName?: string): Promise<string> {
		const registered = await pollUntil(
			async () => {
				const webhook = await this.sandbox.admin.accountWebhook(this.org);
				return webhook?.startsWith(`${url}?`) ? webhook : undefined;
			},
			{ timeoutMs: 60_000, what: `the account webhook to point at ${url}` },
		);
		if (tokenName) this.secrets[tokenName] = new URL(registered).searchParams.get('token') ?? '';
		return registered;
	}

	async run(
		options: ScenarioOptions,
		log: (line: string) => void = () => undefined,
	): Promise<ScenarioFigures> {
		const workflow = await this.publish({ ...options, name: `CRM sync, scenario ${options.name}` });
		await this.crmDb.query('TRUNCATE crm_contacts');
		const prefix = `conv-${options.name}-${Date.now()}`;
		const { order, distinct } = loadOrder({
			total: options.total,
			repeatShare: options.repeatShare,
			prefix,
		});
		const logStart = balancerLogEnd(this.deployment.root);
		const started = Date.now();

		let fault: Promise<void> | undefined;
		if (options.fault) {
			const { atShare, run } = options.fault;
			fault = (async () => {
				await pollUntil(
					async () =>
						(await executionCounts(this.n8nDb, workflow.id)).total >= atShare * options.total,
					{
						timeoutMs: 600_000,
						intervalMs: 250,
						what: `${Math.round(atShare * 100)}% of the executions before the fault`,
					},
				);
				log(
					`[${options.name}] fault at ${(await executionCounts(this.n8nDb, workflow.id)).total} executions`,
				);
				await run(this);
				log(`[${options.name}] fault handled`);
			})();
		}
		// n8n overwrites the data of the runs it marks failed (~90 s after a worker dies): which
		// conversation each run held is read while it is still open.
		const conversationOf = new Map<string, string>();
		const sampler = options.fault
			? sampleOpenExecutions(this.n8nDb, workflow.id, prefix, conversationOf)
			: undefined;
		let deliveries: Delivery[];
		let counts: ExecutionCounts & { leftNew: string[] };
		let seconds: number;
		try {
			deliveries = await deliverLoad(this.sandbox, this.org, this.agentId, order);
			await fault;
			seconds = (Date.now() - started) / 1000;
			counts = await settledExecutions(this.n8nDb, workflow.id);
		} finally {
			await sampler?.stop();
		}
		const settledSeconds = (Date.now() - started) / 1000;
		const crm = await crmFigures(this.crmDb);
		const ids = new Set(order);
		const missingIds = [...ids].filter((id) => !crm.ids.has(id));
		const failedIds = await failedExecutionIds(this.n8nDb, workflow.id);
		const stalledIds = await stalledExecutionIds(this.n8nDb, workflow.id);
		// Read only when runs were left new: the processors' logs are megabytes.
		const enqueued = counts.leftNew.length
			? enqueuedExecutions(this.deployment)
			: new Set<string>();
		const leftNew = await conversationsOf(this.n8nDb, counts.leftNew, prefix);
		const writtenByAnother = (ids: string[]) =>
			ids.filter((id) => crm.ids.has(leftNew.get(id) ?? '')).length;
		const neverQueued = counts.leftNew.filter((id) => !enqueued.has(id));
		const stranded = counts.leftNew.filter((id) => enqueued.has(id));
		const strandedConversations = new Set(stranded.flatMap((id) => leftNew.get(id) ?? []));
		// A stalled run's stored data is n8n's error alone: its conversation was read while it was open.
		const inQueueConversations = new Set([
			...strandedConversations,
			...stalledIds.flatMap((id) => conversationOf.get(id) ?? []),
		]);
		const failedConversations = new Set(
			failedIds.flatMap((id) => (conversationOf.has(id) ? [conversationOf.get(id) as string] : [])),
		);

		// Which processor answered each delivery: nginx logs the sandbox's delivery id.
		const balancer = balancerLog(this.deployment.root, logStart);
		const upstreamOf = new Map(balancer.map((e) => [e.delivery, e.upstreams.at(-1)]));
		const processorsOf = new Map<string, Set<string>>();
		for (const delivery of deliveries) {
			const upstream = upstreamOf.get(delivery.id);
			if (!upstream) continue;
			const set = processorsOf.get(delivery.conversationId) ?? new Set<string>();
			set.add(upstream);
			processorsOf.set(delivery.conversationId, set);
		}

		const serverAt = new Map(this.deployment.servers.map((s) => [`127.0.0.1:${s.port}`, s]));
		const answeredWhileStarting = balancer.filter((entry) => {
			const starts = serverAt.get(entry.upstreams.at(-1) ?? '')?.starts ?? [];
			const at = entry.msec * 1000;
			return starts.some((start) => at >= start.spawned && at < (start.ready ?? Infinity));
		}).length;
		const missingExplained =
			missingIds.length === 0
				? []
				: await explainMissing({
						missingIds,
						deliveries,
						n8nDb: this.n8nDb,
						workflowId: workflow.id,
						balancer,
						processorOf: (upstream) => serverAt.get(upstream)?.name ?? upstream,
						startedAt: started,
					});

		return {
			scenario: options.name,
			deliveries: deliveries.length,
			delivered: deliveries.filter((d) => d.status === 'delivered').length,
			undelivered: deliveries.filter((d) => d.status === 'failed').length,
			retries: deliveries.reduce((sum, d) => sum + Math.max(0, d.attempts - 1), 0),
			distinct,
			executions: counts.total,
			executionsByStatus: counts.byStatus,
			rows: crm.rows,
			writtenTwice: crm.writtenTwice,
			writtenTwiceDeliveredOnce: [...crm.writtenTwiceIds].filter(
				(id) => order.indexOf(id) === order.lastIndexOf(id),
			).length,
			missing: missingIds.length,
			failed: failedIds.length,
			failedIdentified: failedIds.filter((id) => conversationOf.has(id)).length,
			failedWrittenByAnother: failedIds.filter((id) => crm.ids.has(conversationOf.get(id) ?? ''))
				.length,
			failedUnwritten: [...failedConversations].filter((id) => !crm.ids.has(id)).length,
			missingNotFailed: missingIds.filter((id) => !failedConversations.has(id)).length,
			neverQueued: neverQueued.length,
			neverQueuedWrittenByAnother: writtenByAnother(neverQueued),
			stranded: stranded.length,
			strandedWrittenByAnother: writtenByAnother(stranded),
			strandedUnwritten: [...strandedConversations].filter((id) => !crm.ids.has(id)).length,
			stalled: stalledIds.length,
			lostInQueue: [...inQueueConversations].filter((id) => !crm.ids.has(id)).length,
			missingNotLostInQueue: missingIds.filter((id) => !inQueueConversations.has(id)).length,
			answeredWhileStarting,
			repeatsAcrossProcessors: [...processorsOf.values()].filter((set) => set.size > 1).length,
			seconds: Math.round(seconds * 10) / 10,
			settledSeconds: Math.round(settledSeconds * 10) / 10,
			deliveriesPerSecond: Math.round((order.length / settledSeconds) * 10) / 10,
			timings: await executionTimings(this.n8nDb, workflow.id),
			missingExplained,
		};
	}

	async close(): Promise<void> {
		await Promise.allSettled([this.n8nDb.end(), this.crmDb.end()]);
		await Promise.allSettled([this.deployment.close(), this.sandbox.close()]);
		if (this.ownsRoot && !process.env.VOICEAI_E2E_KEEP)
			rmSync(this.ownsRoot, { recursive: true, force: true });
	}
}

export function formatFigures(f: ScenarioFigures): string {
	return (
		`scenario ${f.scenario}: delivered ${f.delivered}/${f.deliveries} (gave up ${f.undelivered}, retries ${f.retries}), ` +
		`distinct ${f.distinct}, executions ${f.executions} ${JSON.stringify(f.executionsByStatus)}, rows ${f.rows}, ` +
		`written twice ${f.writtenTwice} (of them delivered once ${f.writtenTwiceDeliveredOnce}), missing ${f.missing}, ` +
		`failed runs ${f.failed} (conversation known for ${f.failedIdentified}, written by another run ${f.failedWrittenByAnother}, conversations lost ${f.failedUnwritten}; missing without a failed run ${f.missingNotFailed}), never queued ${f.neverQueued} (written by another run ${f.neverQueuedWrittenByAnother}), stranded in the queue ${f.stranded} (written by another run ${f.strandedWrittenByAnother}, conversations lost ${f.strandedUnwritten}), failed as stalled ${f.stalled} (stranded or stalled, conversations lost ${f.lostInQueue}), answered by a starting processor ${f.answeredWhileStarting}, repeats across processors ${f.repeatsAcrossProcessors}, ` +
		`answered in ${f.seconds} s, all executions done in ${f.settledSeconds} s (${f.deliveriesPerSecond} deliveries/s), ` +
		`queue wait median ${f.timings.queueWaitMs.median} ms (p90 ${f.timings.queueWaitMs.p90} ms), run median ${f.timings.runMs} ms`
	);
}

/** Execution IDs the deployment's webhook processors and main logged as enqueued ("Enqueued execution N"). */
function enqueuedExecutions(deployment: QueueDeployment): Set<string> {
	const ids = new Set<string>();
	for (const server of deployment.servers) {
		if (server.role === 'worker') continue;
		if (!existsSync(server.logFile)) continue;
		for (const match of readFileSync(server.logFile, 'utf8').matchAll(/Enqueued execution (\d+) /g))
			ids.add(match[1]);
	}
	return ids;
}
