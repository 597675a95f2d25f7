/**
 * Voice AI > Conversation > Pass Once across processes: the recorder runs in several processes against
 * one Postgres through n8n's own processed-data store (the n8n install's DeduplicationHelper, as
 * bench/scenarios/passOnceWorker.ts loads it), as queue-mode workers would. It needs the n8n install
 * (VOICEAI_N8N_DIR), so the quick loop leaves it out. The queue suite (test/queue) proves the same in
 * real n8n.
 */
import { n8nDir } from '../../harness/n8n';
import {
	plannedIds,
	startStoreDatabase,
	startWorker,
	type StoreBase,
} from '../../bench/scenarios/passOnceCeiling';

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
