import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * n8n's processed-data store reads and rewrites one record per workflow, with no lock: two calls that
 * overlap (two workers, or two runs in one process) can both find a conversation new, or overwrite
 * each other's entries. Its one atomic step is creating a record, whose key is unique. Pass Once uses
 * that as a lock across processes: the node's own record (scope "node") exists while a process holds
 * it. Within a process, the conversations that arrive while the lock is taken or held wait together
 * and are recorded in one write under the next lock: each process has one caller at the lock, and a
 * lock costs the same for one conversation as for fifty.
 */
export type Store = Pick<
	IExecuteFunctions['helpers'],
	'checkProcessedAndRecord' | 'clearAllProcessedItems' | 'getProcessedDataCount'
>;

interface Waiting {
	id: string;
	store: Store;
	settle: (outcome: { isNew: boolean } | { error: unknown }) => void;
}

const ENTRIES = { mode: 'entries' } as const;
const LOCK = 'pass-once lock';
/** A holder keeps the lock for a few database round trips; a lock record this old was left by a dead process. */
const LOCK_LAPSES_AFTER_MS = 30_000;
const LOCK_WAIT_MS = 60_000;
const ATTEMPTS = 3;
const RECHECK_MS = 1_000;

/** Per workflow and history size: the conversations waiting for the next write. */
const queues = new Map<string, Waiting[]>();

/** Whether `id` is new to the workflow's history (and now recorded in it). */
export async function recordOnce(
	store: Store,
	workflowId: string,
	id: string,
	historySize: number,
): Promise<boolean> {
	const key = `${workflowId}\n${historySize}`;
	const outcome = await new Promise<{ isNew: boolean } | { error: unknown }>((settle) => {
		const queue = queues.get(key);
		if (queue) {
			queue.push({ id, store, settle });
			return;
		}
		queues.set(key, [{ id, store, settle }]);
		void drain(key, historySize);
	});
	if ('error' in outcome) throw outcome.error;
	return outcome.isNew;
}

async function drain(key: string, historySize: number): Promise<void> {
	const queue = queues.get(key) as Waiting[];
	let othersWaiting = false;
	while (queue.length > 0) {
		// Another process waited at the lock: let it take it before this process takes it again.
		if (othersWaiting) await sleep(30 + Math.floor(Math.random() * 20));
		const batch = queue.splice(0);
		try {
			const written = await underLock(batch[0].store, async () => {
				const ids = [...new Set(batch.map((waiting) => waiting.id))];
				const result = await batch[0].store.checkProcessedAndRecord(ids, 'workflow', {
					mode: 'entries',
					maxEntries: historySize,
				});
				return new Set(result.new.map(String));
			});
			othersWaiting = written.othersWaiting;
			// A conversation twice in one write is new once: the first of its callers passes it on.
			for (const waiting of batch) {
				const isNew = written.value.delete(waiting.id);
				waiting.settle({ isNew });
			}
		} catch (error) {
			othersWaiting = false;
			for (const waiting of batch) waiting.settle({ error });
		}
	}
	queues.delete(key);
}

/**
 * Runs `task` while this process holds the lock: the node's record [LOCK, a token of this caller].
 * Creating the record succeeds for one caller only; a caller that finds it adds its token, so a
 * record that still holds a caller's token on its next try is the same record, held by the same
 * holder. A record held that long (LOCK_LAPSES_AFTER_MS) was left by a process that died, and is
 * cleared. The holder sees the waiters' tokens before it lets go. Between tries a waiter only reads.
 */
async function underLock<T>(
	store: Store,
	task: () => Promise<T>,
): Promise<{ value: T; othersWaiting: boolean }> {
	const token = `${LOCK} ${Date.now()} ${Math.random()}`;
	const started = Date.now();
	let heldSince = started;
	let failures = 0;
	let lastError: unknown;
	for (;;) {
		let raced = false;
		try {
			const tried = await store.checkProcessedAndRecord([LOCK, token], 'node', ENTRIES);
			failures = 0;
			if (tried.new.length === 2) break;
			// new = [token]: a record made since this caller's last try; new = []: the same record.
			if (tried.new.length === 1) heldSince = Date.now();
			else if (Date.now() - heldSince > LOCK_LAPSES_AFTER_MS) {
				await store.clearAllProcessedItems('node', ENTRIES);
				heldSince = Date.now();
			}
		} catch (error) {
			// Another caller created the record at the same moment (unique key): the record is there. Or
			// the database failed: three failures in a row fail the conversations now.
			lastError = error;
			const held = await store.getProcessedDataCount('node', ENTRIES).then(
				(entries) => entries > 0,
				() => false,
			);
			if (!held) failures++;
			raced = true;
		}
		if (failures >= ATTEMPTS) {
			throw new Error(`could not take the lock of Pass Once: ${(lastError as Error).message}`);
		}
		if (Date.now() - started > LOCK_WAIT_MS) {
			throw new Error(
				`the lock of Pass Once stayed taken for ${LOCK_WAIT_MS / 1000} s${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
			);
		}
		// After a lost race the next try finds the winner's record and puts this caller's token in it.
		if (raced) await sleep(5 + Math.floor(Math.random() * 20));
		else await untilWorthTrying(store);
	}
	try {
		const value = await task();
		const entries = await store.getProcessedDataCount('node', ENTRIES).catch(() => 2);
		return { value, othersWaiting: entries > 2 };
	} finally {
		await release(store);
	}
}

/**
 * Waits by reading only, while the record this caller put its token in is held. A record with fewer
 * than 3 entries (the lock, its holder's token, this caller's) or fewer than last read is another
 * one: the next try puts this caller's token in it, so that its holder sees someone waiting. After
 * RECHECK_MS a try also tells whether the same holder still has it.
 */
async function untilWorthTrying(store: Store): Promise<void> {
	const since = Date.now();
	let last: number | undefined;
	while (Date.now() - since < RECHECK_MS) {
		await sleep(5 + Math.floor(Math.random() * 20));
		let entries: number;
		try {
			entries = await store.getProcessedDataCount('node', ENTRIES);
		} catch {
			return;
		}
		if (entries < 3 || (last !== undefined && entries < last)) return;
		last = entries;
	}
}

/** Deleting the lock record is idempotent, so it is tried again: a lock left behind stalls every process. */
async function release(store: Store): Promise<void> {
	for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
		try {
			await store.clearAllProcessedItems('node', ENTRIES);
			return;
		} catch {
			await sleep(50 * attempt);
		}
	}
}
