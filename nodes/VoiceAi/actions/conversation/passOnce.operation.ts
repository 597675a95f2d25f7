import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { invalidField, readInteger } from '../validation';
import { defineOperation } from '../types';

const RESOURCE = 'conversation';
const OPERATION = 'passOnce';
const show = { resource: [RESOURCE], operation: [OPERATION] };

const ID_FIELD = { name: 'conversationId', label: 'Conversation ID' };
const HISTORY_FIELD = { name: 'historySize', label: 'History Size' };
const DEFAULT_HISTORY_SIZE = 10_000;

interface PassOnceInput {
	id: string;
	historySize: number;
}

/**
 * n8n's processed-data store reads and rewrites one record per workflow, with no lock: two calls that
 * overlap (two workers, or two runs in one process) can both find a conversation new, or overwrite
 * each other's entries. Its one atomic step is creating a record, whose key is unique. Pass Once uses
 * that as a lock across processes: the node's own record (scope "node") exists while a run holds it.
 * Within a process the calls are also chained, so each process has at most one waiter.
 */
const chains = new Map<string, Promise<unknown>>();
const ATTEMPTS = 3;
const LOCK = 'pass-once lock';
/** A holder keeps the lock for a few database round trips; one seen held this long died holding it. */
const LOCK_LAPSES_AFTER_MS = 30_000;
const LOCK_WAIT_MS = 60_000;

function oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
	const next = (chains.get(key) ?? Promise.resolve()).then(task, task);
	const settled = next.catch(() => undefined);
	chains.set(key, settled);
	void settled.then(() => {
		if (chains.get(key) === settled) chains.delete(key);
	});
	return next;
}

/** The task's result, or the last error of ATTEMPTS tries (as a rejected promise, not re-thrown). */
async function withRetries<T>(task: () => Promise<T>): Promise<T> {
	let outcome = task();
	for (let attempt = 1; attempt < ATTEMPTS; attempt++) {
		const delay = 50 * attempt;
		outcome = outcome.catch(async () => {
			await sleep(delay);
			return await task();
		});
	}
	return await outcome;
}

type Store = Pick<
	IExecuteFunctions['helpers'],
	'checkProcessedAndRecord' | 'clearAllProcessedItems' | 'getProcessedDataCount'
>;
const ENTRIES = { mode: 'entries' } as const;

/**
 * Creating the record [LOCK, a token of this call] succeeds for one caller only; a caller that finds
 * the record sees LOCK as processed (and adds its token, which nobody asks about). While the record
 * exists, waiters only count its entries. A lock seen held for LOCK_LAPSES_AFTER_MS is cleared.
 */
async function acquireLock(store: Store): Promise<void> {
	const started = Date.now();
	let heldSince = Date.now();
	let lastError: unknown;
	while (Date.now() - started < LOCK_WAIT_MS) {
		// A database that cannot be read fails the item now, not after LOCK_WAIT_MS.
		const held =
			(await withRetries(async () => await store.getProcessedDataCount('node', ENTRIES))) > 0;
		if (!held) {
			heldSince = Date.now();
			try {
				const token = `${LOCK} ${Date.now()} ${Math.random()}`;
				const result = await store.checkProcessedAndRecord([LOCK, token], 'node', ENTRIES);
				if (result.new.length === 2) return;
			} catch (error) {
				// Another caller created the record at the same moment (unique key).
				lastError = error;
			}
		} else if (Date.now() - heldSince > LOCK_LAPSES_AFTER_MS) {
			await store.clearAllProcessedItems('node', ENTRIES).catch(() => undefined);
			heldSince = Date.now();
		}
		await sleep(5 + Math.floor(Math.random() * 20));
	}
	throw new Error(
		`the lock of Pass Once stayed taken for ${LOCK_WAIT_MS / 1000} s${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
	);
}

async function passesOnce(store: Store, id: string, historySize: number): Promise<boolean> {
	await acquireLock(store);
	try {
		const result = await withRetries(
			async () =>
				await store.checkProcessedAndRecord([id], 'workflow', {
					mode: 'entries',
					maxEntries: historySize,
				}),
		);
		return result.new.length > 0;
	} finally {
		await withRetries(async () => await store.clearAllProcessedItems('node', ENTRIES)).catch(
			() => undefined,
		);
		// Lets a waiting process see the lock free before this process takes it again.
		await sleep(Math.floor(Math.random() * 15));
	}
}

export const passOnce = defineOperation<PassOnceInput>({
	description: [
		{
			displayName:
				'Passes each conversation on once, across executions, n8n processes and restarts: the IDs are kept in n8n\'s database (the store of Remove Duplicates\' "previous executions" mode). Makes no request to Voice AI.',
			name: 'passOnceNotice',
			type: 'notice',
			default: '',
			displayOptions: { show },
		},
		{
			displayName: ID_FIELD.label,
			name: ID_FIELD.name,
			type: 'string',
			required: true,
			default: '={{ $json._voiceAi ? $json._voiceAi.conversationId : $json.conversation_id }}',
			description:
				"What identifies a conversation. The default reads the Voice AI Trigger's output in either Output mode (conversation_id of the delivery).",
			displayOptions: { show },
		},
		{
			displayName: HISTORY_FIELD.label,
			name: HISTORY_FIELD.name,
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1_000_000 },
			default: DEFAULT_HISTORY_SIZE,
			description:
				'How many conversation IDs this workflow remembers; the oldest are forgotten first',
			displayOptions: { show },
		},
	],
	repeatable: true,
	validate(itemIndex) {
		const raw = this.getNodeParameter(ID_FIELD.name, itemIndex, '') as unknown;
		const id = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
		if (typeof id !== 'string' || id.trim() === '') {
			throw invalidField(
				this,
				itemIndex,
				ID_FIELD,
				`expected a non-empty text, got ${raw === undefined || raw === '' ? 'nothing' : JSON.stringify(raw)}`,
				"Point 'Conversation ID' at the item's conversation ID, e.g. {{ $json.conversation_id }}. Nothing was recorded for this item.",
			);
		}
		const historySize = readInteger(this, itemIndex, HISTORY_FIELD, DEFAULT_HISTORY_SIZE, {
			min: 1,
			max: 1_000_000,
		});
		return { id: id.trim(), historySize };
	},
	async execute({ id, historySize }, _api, itemIndex) {
		const helpers = this.helpers as Partial<IExecuteFunctions['helpers']>;
		if (
			typeof helpers.checkProcessedAndRecord !== 'function' ||
			typeof helpers.clearAllProcessedItems !== 'function' ||
			typeof helpers.getProcessedDataCount !== 'function'
		) {
			throw new NodeOperationError(
				this.getNode(),
				'This n8n has no processed-data store, so Pass Once cannot work here',
				{
					itemIndex,
					description:
						'Pass Once needs an n8n whose Remove Duplicates node offers "Remove Items Processed in Previous Executions".',
				},
			);
		}
		const store: Store = {
			checkProcessedAndRecord: helpers.checkProcessedAndRecord.bind(this.helpers),
			clearAllProcessedItems: helpers.clearAllProcessedItems.bind(this.helpers),
			getProcessedDataCount: helpers.getProcessedDataCount.bind(this.helpers),
		};
		let isNew: boolean;
		try {
			isNew = await oneAtATime(
				String(this.getWorkflow().id),
				async () => await passesOnce(store, id, historySize),
			);
		} catch (error) {
			throw new NodeOperationError(
				this.getNode(),
				`Could not read or record conversation "${id}" in n8n's processed-data store: ${(error as Error).message}`,
				{
					itemIndex,
					description: 'The item was not passed on. Run it again once n8n can reach its database.',
				},
			);
		}
		if (!isNew) return [];
		return [this.getInputData()[itemIndex].json as IDataObject];
	},
});
