/**
 * One process of the Pass Once ceiling benchmark (passOnceCeiling.ts), standing in for a queue-mode
 * worker: n8n's own processed-data store (DeduplicationHelper of the n8n install, on its TypeORM and
 * entity, against the shared Postgres) behind the helpers n8n hands a node, and Pass Once's recorder
 * on top, `inFlight` checks at a time (a worker's --concurrency). Says "ready", starts on the
 * parent's line, then prints one JSON line: what passed, and per check its wait.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type { IDeduplicationOutput } from 'n8n-workflow';

import type { Store } from '../../nodes/VoiceAi/actions/conversation/passOnceRecorder';

export interface WorkerPlan {
	n8nDir: string;
	recorder: string;
	pg: { host: string; port: number; user: string; password: string; database: string };
	workflowId: string;
	nodeId: string;
	ids: string[];
	inFlight: number;
	historySize: number;
	/** Fill the workflow's history with this many other conversations before "ready" (a history in use). */
	prefill?: number;
	/**
	 * setup: create n8n's processed_data table (its migrations' columns, without the workflow foreign
	 * key) and empty it. leaveLock: create the lock record as a process killed while holding it would
	 * leave it, and exit. probe: print how many entries the lock record holds (0: no lock).
	 */
	mode?: 'setup' | 'leaveLock' | 'probe';
}

export interface WorkerReport {
	passed: string[];
	/** Per check: ms from the call to the start of the history write that carried it. */
	lockWaitMs: number[];
	/** Per check: ms from the call to its answer. */
	checkMs: number[];
	historyWrites: number;
	/** Per history write: ms the store took to read the history and write it back. */
	historyWriteMs: number[];
	storeCalls: number;
	errors: string[];
	elapsedMs: number;
}

async function main(): Promise<void> {
	const plan = JSON.parse(process.argv[2]) as WorkerPlan;
	process.env.DB_TYPE = 'postgresdb';
	const fromN8n = createRequire(join(plan.n8nDir, 'node_modules', 'n8n', 'package.json'));
	const fromDb = createRequire(fromN8n.resolve('@n8n/db'));
	const { Container } = fromDb('@n8n/di') as { Container: { set(k: unknown, v: unknown): void } };
	const { DataSource } = fromDb('@n8n/typeorm') as { DataSource: new (o: object) => any };
	const db = fromN8n('@n8n/db') as { ProcessedData: unknown };
	const { DeduplicationHelper } = fromN8n('./dist/deduplication/deduplication-helper.js') as {
		DeduplicationHelper: new () => any;
	};
	const dataSource = new DataSource({
		type: 'postgres',
		...plan.pg,
		username: plan.pg.user,
		entities: [db.ProcessedData],
		// n8n's DB_POSTGRESDB_POOL_SIZE as the queue deployment sets it (scaling.md).
		extra: { max: 10 },
	});
	await dataSource.initialize();
	if (plan.mode === 'setup') {
		await dataSource.query(
			'CREATE TABLE IF NOT EXISTS processed_data ("workflowId" varchar(36) NOT NULL, context varchar(255) NOT NULL, value text NOT NULL, "createdAt" timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3), "updatedAt" timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3), PRIMARY KEY ("workflowId", context))',
		);
		await dataSource.query('DELETE FROM processed_data');
		await dataSource.destroy();
		process.stdout.write('{}\n');
		return;
	}
	Container.set(DataSource, dataSource);
	const helper = new DeduplicationHelper();
	const contextData = { workflow: { id: plan.workflowId }, node: { id: plan.nodeId } };

	const writes: Array<{ at: number; ids: Set<string>; ms?: number }> = [];
	let storeCalls = 0;
	// What getDeduplicationHelperFunctions (n8n-core) hands a node, with the history writes noted.
	const trace = process.env.VOICEAI_PASS_ONCE_TRACE
		? (line: string) => process.stderr.write(`${process.pid} ${Date.now() % 1e6} ${line}\n`)
		: undefined;
	const traced = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
		if (!trace) return await call();
		try {
			const result = await call();
			trace(`${what} -> ${String(JSON.stringify(result)).slice(0, 80)}`);
			return result;
		} catch (error) {
			trace(`${what} !! ${(error as Error).message.slice(0, 80)}`);
			throw error;
		}
	};
	const store: Store = {
		async checkProcessedAndRecord(items, scope, options) {
			storeCalls++;
			const write = { at: Date.now(), ids: new Set(items.map(String)), ms: 0 };
			if (scope === 'workflow') writes.push(write);
			const result = await traced<IDeduplicationOutput>(
				`check ${scope} ${items.length === 2 ? items[1] : items.length}`,
				() => helper.checkProcessedAndRecord(items, scope, contextData, options),
			);
			write.ms = Date.now() - write.at;
			return result;
		},
		async clearAllProcessedItems(scope, options) {
			storeCalls++;
			return await traced(`clear ${scope}`, () =>
				helper.clearAllProcessedItems(scope, contextData, options),
			);
		},
		async getProcessedDataCount(scope, options) {
			storeCalls++;
			return await traced(`count ${scope}`, () =>
				helper.getProcessedDataCount(scope, contextData, options),
			);
		},
	};
	const { recordOnce } = require(plan.recorder) as {
		recordOnce: (s: Store, w: string, id: string, h: number) => Promise<boolean>;
	};

	if (plan.mode === 'leaveLock' || plan.mode === 'probe') {
		const lockEntries =
			plan.mode === 'leaveLock'
				? (
						await store.checkProcessedAndRecord(['pass-once lock', 'a process that died'], 'node', {
							mode: 'entries',
						})
					).new.length
				: await store.getProcessedDataCount('node', { mode: 'entries' });
		await dataSource.destroy();
		process.stdout.write(`${JSON.stringify({ lockEntries })}\n`);
		return;
	}
	if (plan.prefill) {
		const filler = Array.from(
			{ length: plan.prefill },
			(_, i) => `${plan.workflowId}-earlier-${i}`,
		);
		await store.checkProcessedAndRecord(filler, 'workflow', {
			mode: 'entries',
			maxEntries: plan.historySize,
		});
		writes.length = 0;
		storeCalls = 0;
	}
	// Every process starts its checks together: the parent answers "ready" with a line.
	process.stdout.write('ready\n');
	await new Promise((go) => process.stdin.once('data', go));
	process.stdin.pause();
	const started = Date.now();
	const report: WorkerReport = {
		passed: [],
		lockWaitMs: [],
		checkMs: [],
		historyWrites: 0,
		historyWriteMs: [],
		storeCalls: 0,
		errors: [],
		elapsedMs: 0,
	};
	let next = 0;
	async function lane(): Promise<void> {
		while (next < plan.ids.length) {
			const id = plan.ids[next++];
			const at = Date.now();
			const writesBefore = writes.length;
			try {
				if (await recordOnce(store, plan.workflowId, id, plan.historySize)) report.passed.push(id);
				const write = writes.slice(writesBefore).find((w) => w.ids.has(id));
				report.lockWaitMs.push(write ? write.at - at : NaN);
			} catch (error) {
				report.errors.push(`${id}: ${(error as Error).message}`);
			}
			report.checkMs.push(Date.now() - at);
		}
	}
	await Promise.all(Array.from({ length: plan.inFlight }, lane));
	report.elapsedMs = Date.now() - started;
	report.historyWrites = writes.length;
	report.historyWriteMs = writes.map((write) => write.ms ?? NaN);
	report.storeCalls = storeCalls;
	await dataSource.destroy();
	process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
