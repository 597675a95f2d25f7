/**
 * Voice AI > Conversation > Pass Once in n8n-core's engine. The engine harness runs no n8n database,
 * so n8n's processed-data store is absent there: the first tests cover what happens before and
 * without it (input checks, the message when the store is missing, no request to Voice AI).
 *
 * "Across processes" runs the recorder in several processes against one Postgres through n8n's own
 * processed-data store (the n8n install's DeduplicationHelper, as bench/scenarios/passOnceWorker.ts
 * loads it), as queue-mode workers would. The queue suite (test/queue) proves the same in real n8n.
 */
import { n8nDir } from '../support/n8n';
import { SandboxFixture } from '../support/sandboxFixture';
import {
	plannedIds,
	startStoreDatabase,
	startWorker,
	type StoreBase,
} from '../../bench/scenarios/passOnceCeiling';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const passOnce = { resource: 'conversation', operation: 'passOnce' };

it('reads the conversation id of either trigger output by default, and names the item whose id is missing', async () => {
	const result = await fx.run(passOnce, {
		items: [
			{ json: { _voiceAi: { conversationId: 'conv_1' } } },
			{ json: { conversation_id: 'conv_2' } },
			{ json: { name: 'no id' } },
		],
	});
	expect(result.error?.message).toMatch(
		/Invalid 'Conversation ID' in item 2: expected a non-empty text, got nothing/,
	);
	expect(await fx.requests()).toEqual([]);
});

it('refuses a history size outside 1 to 1,000,000', async () => {
	const result = await fx.run(
		{ ...passOnce, historySize: 0 },
		{ items: [{ json: { conversation_id: 'conv_1' } }] },
	);
	expect(result.error?.message).toMatch(
		/Invalid 'History Size' in item 0: 0 is outside 1 to 1000000/,
	);
});

it("without n8n's processed-data store, says so and passes nothing on; no request reaches Voice AI", async () => {
	const result = await fx.run(passOnce, { items: [{ json: { conversation_id: 'conv_1' } }] });
	expect(result.items).toEqual([]);
	expect(result.error?.message).toMatch(
		/Could not read or record conversation "conv_1" in n8n's processed-data store/,
	);
	expect(result.error?.description).toMatch(/not passed on/);
	expect(await fx.requests()).toEqual([]);
});

it('with Continue On Fail, the item comes out as an error item instead', async () => {
	const result = await fx.run(passOnce, {
		items: [{ json: { conversation_id: 'conv_1' } }],
		continueOnFail: true,
	});
	expect(result.items).toEqual([
		expect.objectContaining({
			json: expect.objectContaining({ error: expect.stringMatching(/processed-data store/) }),
		}),
	]);
});

describe("across processes, through n8n's processed-data store on Postgres", () => {
	let database: { base: StoreBase; stop: () => Promise<void> };
	beforeAll(async () => {
		database = await startStoreDatabase(n8nDir());
	}, 120_000);
	afterAll(async () => await database?.stop());

	async function runProcesses(workflowId: string, lists: string[][]) {
		const workers = lists.map((ids) => startWorker({ ...database.base, workflowId, ids }));
		await Promise.all(workers.map((worker) => worker.ready));
		for (const worker of workers) worker.go();
		const reports = await Promise.all(workers.map((worker) => worker.done));
		return {
			passed: reports.flatMap((report) => report.passed).sort(),
			errors: reports.flatMap((report) => report.errors),
		};
	}

	async function lockEntries(workflowId: string): Promise<number | undefined> {
		const probe = startWorker({ ...database.base, workflowId, ids: [], mode: 'probe' });
		return (await probe.done).lockEntries;
	}

	it('4 processes, 10 checks in flight each, half the conversations twice from two processes at once: each passes exactly once', async () => {
		const lists = plannedIds('wf-four', 120, 4);
		const { passed, errors } = await runProcesses('wf-four', lists);
		expect(errors).toEqual([]);
		expect(passed).toEqual(Array.from({ length: 120 }, (_, i) => `wf-four-conv-${i}`).sort());
	}, 120_000);

	it('after a restart (new processes), no conversation passes again; new ones do', async () => {
		const first = await runProcesses('wf-restart', plannedIds('wf-restart', 40, 2));
		expect(first.passed).toHaveLength(40);
		const again = plannedIds('wf-restart', 60, 2);
		const second = await runProcesses('wf-restart', again);
		expect(second.errors).toEqual([]);
		expect(second.passed).toEqual(
			Array.from({ length: 20 }, (_, i) => `wf-restart-conv-${40 + i}`).sort(),
		);
	}, 120_000);

	it('a process that exits right after its last check leaves no lock behind', async () => {
		const { passed } = await runProcesses('wf-exit', [['wf-exit-conv-0', 'wf-exit-conv-1']]);
		expect(passed).toEqual(['wf-exit-conv-0', 'wf-exit-conv-1']);
		expect(await lockEntries('wf-exit')).toBe(0);
	}, 60_000);

	it('a lock left by a process killed while holding it lapses: the others go on and every conversation passes once', async () => {
		const left = await startWorker({
			...database.base,
			workflowId: 'wf-killed',
			ids: [],
			mode: 'leaveLock',
		}).done;
		expect(left.lockEntries).toBe(2);
		const { passed, errors } = await runProcesses('wf-killed', plannedIds('wf-killed', 30, 2));
		expect(errors).toEqual([]);
		expect(passed).toEqual(Array.from({ length: 30 }, (_, i) => `wf-killed-conv-${i}`).sort());
		expect(await lockEntries('wf-killed')).toBe(0);
	}, 150_000);
});
