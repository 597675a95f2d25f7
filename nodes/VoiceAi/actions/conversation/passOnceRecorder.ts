import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * n8n's processed-data store keeps one record per workflow and scope (key: workflow id and context,
 * "" or "n:<node id>"); checking a list reads the record and writes it back whole, with no lock, so
 * two overlapping checks can both find a conversation new or overwrite each other's entries. Its one
 * atomic step is creating a record, whose key is unique; it offers no per-value key and no
 * compare-and-set. So the history (scope "workflow") can only be written by one caller at a time,
 * and Pass Once makes that caller's write carry as much as it can: the node's own record (scope
 * "node") is a lock across processes; in a process, every conversation waiting when the lock is
 * taken goes into that one write. docs/scaling.md says why this is correct and what it costs.
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
/** Waiters read the lock record this often (ms, jittered): the gap between a release and the next holder. */
const POLL_MS = [2, 5] as const;
/** A holder that saw waiters leaves the lock free this long before taking it again: a few polls. */
const STEP_ASIDE_MS = 3 * POLL_MS[1];

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

function jittered([low, high]: readonly [number, number]): number {
	return low + Math.floor(Math.random() * (high - low + 1));
}

async function drain(key: string, historySize: number): Promise<void> {
	const queue = queues.get(key) as Waiting[];
	let othersWaiting = false;
	while (queue.length > 0) {
		if (othersWaiting) await sleep(STEP_ASIDE_MS);
		const store = queue[0].store;
		try {
			await acquire(store);
		} catch (error) {
			for (const waiting of queue.splice(0)) waiting.settle({ error });
			othersWaiting = false;
			continue;
		}
		// Taken after the lock, not before: what arrived while this process waited goes in this write.
		const batch = queue.splice(0);
		let outcome: { fresh: Set<string> } | { error: unknown };
		try {
			const ids = [...new Set(batch.map((waiting) => waiting.id))];
			const result = await store.checkProcessedAndRecord(ids, 'workflow', {
				mode: 'entries',
				maxEntries: historySize,
			});
			outcome = { fresh: new Set(result.new.map(String)) };
		} catch (error) {
			// Not retried: a write that landed before its answer was lost would drop the conversations.
			outcome = { error };
		}
		othersWaiting = await store.getProcessedDataCount('node', ENTRIES).then(
			(entries) => entries > 2,
			() => false,
		);
		// Released before the callers go on: a process that exits after its last execution leaves no lock.
		await release(store);
		for (const waiting of batch) {
			// A conversation twice in one write is new once: the first of its callers passes it on.
			if ('fresh' in outcome) waiting.settle({ isNew: outcome.fresh.delete(waiting.id) });
			else waiting.settle({ error: outcome.error });
		}
	}
	queues.delete(key);
}

/**
 * Takes the lock: creates the node's record [LOCK, a token of this caller]. Creating succeeds for one
 * caller only; a caller that finds the record adds its token, so a record that still holds the token
 * on its next try is the same record, held by the same holder, and one held that long
 * (LOCK_LAPSES_AFTER_MS) was left by a process that died: it is cleared. Between tries a waiter only
 * reads; it tries again when the record is gone, or is another one without its token.
 */
async function acquire(store: Store): Promise<void> {
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
			if (tried.new.length === 2) return;
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
		if (raced) await sleep(jittered(POLL_MS));
		else await whileHeld(store);
	}
}

/**
 * Reads the lock record until it is worth another try: it is gone, or it has fewer than 3 entries
 * (the lock, its holder's token and this caller's) or fewer than last read, so it is another record,
 * which the next try marks so that its holder steps aside. After RECHECK_MS a try also tells whether
 * the same holder still has it.
 */
async function whileHeld(store: Store): Promise<void> {
	const since = Date.now();
	let last: number | undefined;
	while (Date.now() - since < RECHECK_MS) {
		await sleep(jittered(POLL_MS));
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
