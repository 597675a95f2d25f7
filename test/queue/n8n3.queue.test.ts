/**
 * Queue mode as n8n 3.0 runs it: manual executions always go to workers (3.0 drops the choice that
 * 2.x offers as OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, off by default). n8n 3.0 is not on npm, so the
 * deployment is 2.x with that setting: one webhook processor, one worker. A test listen of the trigger
 * registers, receives, runs and gives the account back; a manual run of the SIP audit works.
 */
import { QueueRig } from '../../harness/queue/rig';
import { sipAuditOnWorker } from '../../harness/queue/sip-audit';
import { testListenInQueueMode } from '../../harness/queue/test-listen';

const AUDITED_NUMBERS = 200;
const say = (line: string) => process.stdout.write(`[queue, n8n 3.0 behaviour] ${line}\n`);

let rig: QueueRig;

beforeAll(async () => {
	rig = await QueueRig.start({
		webhookProcessors: 1,
		workers: 1,
		env: { OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true' },
		log: say,
	});
}, 300_000);

afterAll(async () => {
	await rig?.close();
}, 120_000);

test('a test listen registers the test URL, its run goes to a worker, and the account goes back to the published workflow', async () => {
	const listen = await testListenInQueueMode(rig);
	say(
		`test run ${listen.testRun.executionId} (${listen.testRun.mode}, ${listen.testRun.status}) on ${listen.testRun.ranOn}; ` +
			`published run ${listen.publishedRun.executionId} on ${listen.publishedRun.ranOn}`,
	);
	expect(listen.testRun).toMatchObject({ mode: 'manual', status: 'success', crmRows: 1 });
	expect(listen.testRun.ranOn).toMatch(/^worker-/);
	expect(listen.accountAfterTest).toBe(listen.publishedUrl);
	expect(listen.publishedRun).toMatchObject({ mode: 'webhook', status: 'success', crmRows: 1 });
});

test('a manual run of the SIP audit runs on the worker and reports exactly the drifted numbers', async () => {
	const audit = await sipAuditOnWorker(rig, AUDITED_NUMBERS, 'manual');
	say(`SIP audit run ${audit.executionId} (${audit.mode}, ${audit.status}) on ${audit.ranOn}`);
	expect(audit).toMatchObject({ mode: 'manual', status: 'success' });
	expect(audit.ranOn).toMatch(/^worker-/);
	expect(audit.compared).toBe(AUDITED_NUMBERS);
	expect(audit.foundDrifting).toBe(audit.drifted);
	expect(audit.reportMatchesDrift).toBe(true);
});
