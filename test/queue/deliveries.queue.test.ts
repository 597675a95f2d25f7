/**
 * n8n in queue mode (harness/queue: Postgres, Redis, nginx, main, two webhook processors, two
 * workers) syncing conversations into a CRM table under load: VOICEAI_QUEUE_DELIVERIES deliveries
 * (default 400; docs/scaling.md says why that is enough) completed by the sandbox, at most 40 in
 * flight through the balancer, 10% of them a second delivery of an earlier conversation. Each scenario prints its figures. Scenario e: a test
 * listen on main, and the SIP audit example over 1,000 numbers on a worker.
 *
 * What each scenario holds is in docs/scaling.md.
 */
import { formatFigures, QueueRig, type ScenarioFigures } from '../../harness/queue/rig';
import { filesHoldingSecrets } from '../../harness/queue/secretsOnDisk';
import { sipAuditOnWorker } from '../../harness/queue/sip-audit';
import { testListenInQueueMode } from '../../harness/queue/test-listen';

const TOTAL = Number(process.env.VOICEAI_QUEUE_DELIVERIES ?? 400);
const AUDITED_NUMBERS = 1000;
const REPEATS = 0.1;

let rig: QueueRig;
const results: Array<ScenarioFigures | string> = [];
const say = (line: string) => process.stdout.write(`[queue] ${line}\n`);

beforeAll(async () => {
	rig = await QueueRig.start({ log: say });
}, 300_000);

afterAll(async () => {
	for (const figures of results)
		say(typeof figures === 'string' ? figures : formatFigures(figures));
	await rig?.close();
}, 120_000);

async function scenario(options: Parameters<QueueRig['run']>[0]): Promise<ScenarioFigures> {
	const figures = await rig.run(options, say);
	results.push(figures);
	say(formatFigures(figures));
	for (const line of figures.missingExplained) say(`[${figures.scenario}] ${line}`);
	return figures;
}

/** Worker 1 killed (SIGKILL) at 30% of the load, then started again. */
const workerKilled: NonNullable<Parameters<QueueRig['run']>[0]['fault']> = {
	atShare: 0.3,
	run: async ({ deployment }) => {
		const worker = deployment.process('worker-1');
		await worker.stop('SIGKILL');
		await worker.start();
	},
};

// Repeats reach the other webhook processor (the in-memory check cannot see them) and run on two
// workers at the same moment; Pass Once's lock on n8n's processed-data store lets one through.
test('a. no faults: every distinct conversation written exactly once, none missing', async () => {
	const f = await scenario({ name: 'a', passOnce: true, total: TOTAL, repeatShare: REPEATS });
	expect(f.delivered).toBe(TOTAL);
	expect(f.repeatsAcrossProcessors).toBeGreaterThan(0);
	expect(f.missing).toBe(0);
	expect(f.rows).toBe(f.distinct);
	expect(f.writtenTwice).toBe(0);
});

test('b. a webhook processor and a worker stopped with SIGTERM mid-load and started again: every conversation written exactly once, none missing but the runs the stopping worker stranded, no other run failed', async () => {
	const f = await scenario({
		name: 'b',
		passOnce: true,
		total: TOTAL,
		repeatShare: REPEATS,
		fault: {
			atShare: 0.3,
			run: async ({ deployment }) => {
				const webhook = deployment.process('webhook-1');
				const worker = deployment.process('worker-1');
				await Promise.all([webhook.stop('SIGTERM'), worker.stop('SIGTERM')]);
				await Promise.all([webhook.start(), worker.start()]);
			},
		},
	});
	expect(f.delivered).toBe(TOTAL);
	// A starting processor answers 200 "n8n is starting up" and runs nothing: the balancer must wait.
	expect(f.answeredWhileStarting).toBe(0);
	// n8n 2.40.7's worker pauses Bull for its shutdown by dropping Bull's blocking Redis connection; a
	// job Redis hands over in that instant is never run: its run stays "new", or is marked failed as
	// stalled by the processor that queued it (docs/scaling.md). Those are the only conversations
	// allowed to go missing, and the only failed runs; the figures name them.
	expect(f.missingNotLostInQueue).toBe(0);
	expect(f.missing).toBe(f.lostInQueue);
	expect(f.rows).toBe(f.distinct - f.missing);
	expect(f.writtenTwice).toBe(0);
	expect(f.failed).toBe(f.stalled);
	// Runs n8n created but never queued: the processor exited holding their request, the service saw
	// it fail (502) and sent it again, and another run wrote the conversation.
	expect(f.neverQueuedWrittenByAnother).toBe(f.neverQueued);
});

test('c. a worker killed (SIGKILL) mid-load, answering when finished, the service retrying: none missing', async () => {
	// No Pass Once here: it records a conversation before the write, so a run killed between the two
	// would have its retry dropped. The upsert keyed by conversation id keeps one row per conversation;
	// "written twice" counts the repeats (nothing drops them) and the retries of runs killed after
	// their write (docs/scaling.md).
	const f = await scenario({
		name: 'c',
		passOnce: false,
		respondWhen: 'lastNode',
		total: TOTAL,
		repeatShare: REPEATS,
		fault: workerKilled,
	});
	expect(f.undelivered).toBe(0);
	expect(f.missing).toBe(0);
	expect(f.rows).toBe(f.distinct);
	expect(f.retries).toBeGreaterThan(0);
	// Every run n8n marked failed was delivered again and written by its retry.
	expect(f.failedIdentified).toBe(f.failed);
	expect(f.failedWrittenByAnother).toBe(f.failed);
	// A conversation delivered once is written twice only when the service sent it again.
	expect(f.writtenTwiceDeliveredOnce).toBeLessThanOrEqual(f.retries);
});

test('d. the same kill, answering when received: the conversations missing are the executions n8n marks failed', async () => {
	const f = await scenario({
		name: 'd',
		passOnce: true,
		respondWhen: 'onReceived',
		total: TOTAL,
		repeatShare: REPEATS,
		fault: workerKilled,
	});
	expect(f.delivered).toBe(TOTAL);
	expect(f.failed).toBeGreaterThan(0);
	// Each failed run's conversation, read while it was open: the missing conversations are exactly
	// those of the failed runs that no other copy (a repeat) wrote.
	expect(f.failedIdentified).toBe(f.failed);
	expect(f.missingNotFailed).toBe(0);
	expect(f.missing).toBe(f.failedUnwritten);
	expect(f.writtenTwice).toBe(0);
});

test('e. a test listen on main gives the account back to the published workflow; the SIP audit over 1,000 numbers runs on a worker', async () => {
	const listen = await testListenInQueueMode(rig);
	const listenLine =
		`scenario e, test listen: test URL registered, its run ${listen.testRun.executionId} (${listen.testRun.mode}, ${listen.testRun.status}) on ${listen.testRun.ranOn}; ` +
		`account given back to ${listen.accountAfterTest === listen.publishedUrl ? 'the published workflow' : listen.accountAfterTest}; ` +
		`next delivery: run ${listen.publishedRun.executionId} (${listen.publishedRun.mode}, ${listen.publishedRun.status}) on ${listen.publishedRun.ranOn}, CRM rows ${listen.publishedRun.crmRows}`;
	results.push(listenLine);
	say(listenLine);
	expect(listen.testRun).toMatchObject({ mode: 'manual', status: 'success', ranOn: 'main' });
	expect(listen.accountAfterTest).toBe(listen.publishedUrl);
	expect(listen.publishedRun).toMatchObject({ mode: 'webhook', status: 'success', crmRows: 1 });
	expect(listen.publishedRun.ranOn).toMatch(/^worker-/);

	const audit = await sipAuditOnWorker(rig, AUDITED_NUMBERS);
	const auditLine =
		`scenario e, SIP audit: run ${audit.executionId} (${audit.mode}, ${audit.status}) on ${audit.ranOn} in ${audit.seconds} s; ` +
		`compared ${audit.compared} items naming ${audit.comparedNumbers} of ${audit.numbers} numbers; drifting ${audit.foundDrifting} of ${audit.drifted} seeded; ` +
		`report items ${audit.reported}, naming exactly the drifted numbers: ${audit.reportMatchesDrift}`;
	results.push(auditLine);
	say(auditLine);
	expect(audit).toMatchObject({ mode: 'trigger', status: 'success' });
	expect(audit.ranOn).toMatch(/^worker-/);
	expect(audit.compared).toBe(AUDITED_NUMBERS);
	expect(audit.comparedNumbers).toBe(AUDITED_NUMBERS);
	expect(audit.foundDrifting).toBe(audit.drifted);
	expect(audit.reported).toBe(audit.drifted);
	expect(audit.reportMatchesDrift).toBe(true);
});

test("the deployment's logs and files hold no secret: not the API key, not a webhook token", () => {
	expect(Object.keys(rig.secrets).length).toBeGreaterThan(1);
	expect(filesHoldingSecrets(rig.deployment.root, rig.secrets)).toEqual([]);
});
