import { type IExecuteFunctions, sleep } from 'n8n-workflow';

// The processed-data store writes a list whole, unlocked; only creating a record is atomic. So the
// node's record locks the workflow's history across processes; one write a batch (docs/scaling.md).
export type Store = Pick<
	IExecuteFunctions['helpers'],
	'checkProcessedAndRecord' | 'clearAllProcessedItems' | 'getProcessedDataCount'
>;

interface Waiting {
	id: string;
	store: Store;
	resolve: (isNew: boolean) => void;
	reject: (error: unknown) => void;
}

const ENTRIES = { mode: 'entries' } as const;
const LOCK = 'pass-once lock';
/**
 * A holder keeps the lock for a few round trips: a lock record this old was left by a dead process.
 */
const LOCK_LAPSES_AFTER_MS = 30_000;
const LOCK_WAIT_MS = 60_000;
const ATTEMPTS = 3;
const RECHECK_MS = 1_000;
/** A holder that saw waiters leaves the lock free this long (a few polls) before retaking it. */
const STEP_ASIDE_MS = 15;

/** How often waiters read the lock record (2-5 ms, jittered): the gap before the next holder. */
const poll = async () => await sleep(2 + Math.floor(Math.random() * 4));
const lockEntries = (store: Store) => store.getProcessedDataCount('node', ENTRIES).catch(() => 0);

const queues = new Map<string, Waiting[]>();

/** Whether `id` is new to the workflow's history (and now recorded in it). */
export const recordOnce = (store: Store, workflowId: string, id: string, historySize: number) =>
	new Promise<boolean>((resolve, reject) => {
		const key = `${workflowId}\n${historySize}`;
		const queue = queues.get(key);
		if (queue) return void queue.push({ id, store, resolve, reject });
		queues.set(key, [{ id, store, resolve, reject }]);
		void drain(key, historySize);
	});

async function drain(key: string, historySize: number): Promise<void> {
	const queue = queues.get(key) as Waiting[];
	let othersWaiting = false;
	while (queue.length > 0) {
		if (othersWaiting) await sleep(STEP_ASIDE_MS);
		const { store } = queue[0];
		try {
			await acquire(store);
		} catch (error) {
			for (const waiting of queue.splice(0)) waiting.reject(error);
			break;
		}
		// Taken after the lock, not before: what arrived while this process waited goes in this write.
		const batch = queue.splice(0);
		const ids = [...new Set(batch.map((waiting) => waiting.id))];
		// Not retried: a write that landed before its answer was lost would drop the conversations.
		const fresh = await store
			.checkProcessedAndRecord(ids, 'workflow', { mode: 'entries', maxEntries: historySize })
			.then(
				(result) => new Set(result.new.map(String)),
				(error: unknown) => ({ error }),
			);
		othersWaiting = (await lockEntries(store)) > 2;
		// Released before the callers go on: a process exiting after its last execution leaves no lock.
		await release(store);
		for (const waiting of batch) {
			// A conversation twice in one write is new once: the first of its callers passes it on.
			if (fresh instanceof Set) waiting.resolve(fresh.delete(waiting.id));
			else waiting.reject(fresh.error);
		}
	}
	queues.delete(key);
}

// Creating the node's record [LOCK, token] takes the lock. A waiter adds its token: a record still
// holding it on the next try is the same one, and one held LOCK_LAPSES_AFTER_MS a dead process's.
async function acquire(store: Store): Promise<void> {
	const started = Date.now();
	const token = `${LOCK} ${started} ${Math.random()}`;
	let heldSince = started;
	let failures = 0;
	let lastError: unknown;
	for (;;) {
		let raced = false;
		try {
			const tried = await store.checkProcessedAndRecord([LOCK, token], 'node', ENTRIES);
			failures = 0;
			if (tried.new.length === 2) return;
			// new = [token]: a record made since this caller's last try; new = []: the same record.
			if (tried.new.length === 1) heldSince = Date.now();
			else if (Date.now() - heldSince > LOCK_LAPSES_AFTER_MS) {
				await store.clearAllProcessedItems('node', ENTRIES);
				heldSince = Date.now();
			}
		} catch (error) {
			// A create at the same moment (unique key) or a database failure: 3 with no record fail.
			lastError = error;
			if ((await lockEntries(store)) === 0) failures++;
			raced = true;
		}
		if (failures >= ATTEMPTS)
			throw new Error(`could not take the lock of Pass Once: ${(lastError as Error).message}`);
		if (Date.now() - started > LOCK_WAIT_MS)
			throw new Error(
				`the lock of Pass Once stayed taken for ${LOCK_WAIT_MS / 1000} s${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
			);
		// After a lost race the next try finds the winner's record and puts this caller's token in it.
		if (raced) await poll();
		else await whileHeld(store);
	}
}

// Until a try is worth it: the record is gone, holds under 3 entries (lock, holder, this caller) or
// fewer than last read (a new record); or after RECHECK_MS, to learn if the same holder has it.
async function whileHeld(store: Store): Promise<void> {
	const since = Date.now();
	let last = 0;
	while (Date.now() - since < RECHECK_MS) {
		await poll();
		const entries = await lockEntries(store);
		if (entries < 3 || entries < last) return;
		last = entries;
	}
}

/** Deleting the lock record is idempotent, so it is retried: a lock left behind stalls all. */
async function release(store: Store): Promise<void> {
	for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
		try {
			return await store.clearAllProcessedItems('node', ENTRIES);
		} catch {
			await sleep(50 * attempt);
		}
	}
}
