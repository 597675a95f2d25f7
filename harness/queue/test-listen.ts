/**
 * A test listen ("Execute step" on the trigger) in queue mode, with a CRM workflow published on the
 * same account: main registers the draft's test URL, the service's next delivery runs the draft on
 * main, main gives the account back to the published workflow, and the delivery after that runs the
 * published workflow on a worker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { pollUntil } from '../n8n';
import { crmWorkflow } from './crm';
import type { QueueRig } from './rig';

const TRIGGER = 'Conversation completed';

export interface RunSeen {
	executionId: string;
	mode: string;
	status: string;
	/** The worker whose log says it started this execution, or "main" when no worker ran it. */
	ranOn: string;
	/** CRM rows for the delivered conversation. */
	crmRows: number;
}

export interface TestListenFigures {
	testUrl: string;
	testRun: RunSeen;
	/** The account webhook once the test run ended. */
	accountAfterTest: string;
	publishedUrl: string;
	publishedRun: RunSeen;
}

/** The worker whose log says "Worker started execution <id> (job …)", or "main". */
export function whoRan(rig: QueueRig, executionId: string): string {
	for (const server of rig.deployment.servers.filter((s) => s.role === 'worker')) {
		const log = readFileSync(join(rig.deployment.root, `${server.name}.log`), 'utf8');
		if (log.includes(`Worker started execution ${executionId} (`)) return server.name;
	}
	return 'main';
}

async function deliverOne(
	rig: QueueRig,
	workflowId: string,
	conversationId: string,
): Promise<RunSeen> {
	const before = await rig.n8nDb.query<{ id: number }>(
		'SELECT id FROM execution_entity WHERE "workflowId" = $1',
		[workflowId],
	);
	const known = new Set(before.rows.map((row) => String(row.id)));
	await rig.sandbox.admin.simulateConversation(rig.org, {
		agentId: rig.agentId,
		conversationId,
		variables: { name: `Caller ${conversationId}`, phone: '+14155550199' },
	});
	const run = await pollUntil(
		async () => {
			const { rows } = await rig.n8nDb.query<{ id: number; mode: string; status: string }>(
				'SELECT id, mode, status FROM execution_entity WHERE "workflowId" = $1 ORDER BY id',
				[workflowId],
			);
			const mine = rows.find((row) => !known.has(String(row.id)));
			return mine && !['new', 'running', 'waiting'].includes(mine.status) ? mine : undefined;
		},
		{ timeoutMs: 120_000, what: `the run of workflow ${workflowId} for ${conversationId}` },
	);
	const crm = await rig.crmDb.query('SELECT 1 FROM crm_contacts WHERE conversation_id = $1', [
		conversationId,
	]);
	return {
		executionId: String(run.id),
		mode: run.mode,
		status: run.status,
		ranOn: whoRan(rig, String(run.id)),
		crmRows: crm.rowCount ?? 0,
	};
}

export async function testListenInQueueMode(rig: QueueRig): Promise<TestListenFigures> {
	const { api, balancerUrl } = rig.deployment;
	const published = await rig.publish({ name: 'CRM sync, scenario e', passOnce: true });
	const publishedUrl = api.productionWebhookUrl(balancerUrl, published, TRIGGER);
	const draft = await api.importWorkflow(
		crmWorkflow({
			name: 'CRM sync draft (test listen), scenario e',
			passOnce: true,
			voiceAiCredential: rig.voiceAiCredential,
			postgresCredential: rig.postgresCredential,
		}),
	);
	const testUrl = api
		.productionWebhookUrl(balancerUrl, draft, TRIGGER)
		.replace('/webhook/', '/webhook-test/');

	await api.listenForTestEvent(draft, TRIGGER);
	await rig.accountWebhookAt(testUrl, 'webhook token of the test listen');
	const stamp = Date.now();
	const testRun = await deliverOne(rig, draft.id, `conv-e-test-${stamp}`);

	const accountAfterTest = await rig.accountWebhookAt(publishedUrl);
	const publishedRun = await deliverOne(rig, published.id, `conv-e-after-${stamp}`);
	return {
		testUrl,
		testRun,
		accountAfterTest: accountAfterTest.split('?')[0],
		publishedUrl,
		publishedRun,
	};
}
