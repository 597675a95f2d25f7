/** The n8n process: started on a free port with the package installed, restarted, stopped; migrated user folders. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
	cpSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { installPackage } from './install';
import { harnessEnv } from './env';
import { n8nDir } from './lines';
import { freePort, pollUntil } from './wait';

export interface StartN8nOptions {
	/**
	 * N8N_USER_FOLDER; when omitted, a new temp folder holding a copy of this install's migrated
	 * database (see migratedUserFolder). Reuse one to keep the database.
	 */
	userFolder?: string;
	/** With no userFolder: start from an empty database, so that n8n runs its migrations. */
	fresh?: boolean;
	/** 0 or omitted: a free port. */
	port?: number;
	brokerPort?: number;
	host?: string;
	/** Public base of production webhooks, default `http://<host>:<port>/`. */
	webhookUrl?: string;
	/** Install (or refresh) the packed package into the user folder first. Default true. */
	install?: boolean;
	env?: Record<string, string>;
	readyTimeoutMs?: number;
	/** Copy n8n's output to this process's stdout (the demo's --verbose). */
	echo?: boolean;
	/** Extra Node.js flags for the n8n process (the benchmark's `--cpu-prof`). */
	nodeArgs?: string[];
	/** Called when n8n exits without stop(), restart() or close() asking it to. */
	onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface N8nProcess {
	baseUrl: string;
	port: number;
	userFolder: string;
	logFile: string;
	webhookBase: string;
	/** Process id of the running n8n (undefined while stopped): the benchmark reads its CPU from /proc. */
	pid(): number | undefined;
	/** Last lines of n8n's output. */
	tail(lines?: number): string;
	stop(): Promise<void>;
	/** Stops and starts again on the same port and user folder. */
	restart(): Promise<void>;
	/** Stops; removes the user folder when startN8n created it (set VOICEAI_E2E_KEEP=1 to keep it). */
	close(): Promise<void>;
}

/**
 * freePort's port is free when it is chosen, not necessarily when n8n binds it: a test file running
 * beside this one (its n8n, its sandbox) or an outgoing connection may take it in between. n8n then
 * exits at once ("n8n's port … is already in use"), and the start is tried again on new ports.
 */
export async function startN8n(options: StartN8nOptions = {}): Promise<N8nProcess> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startN8nOnce(options);
		} catch (error) {
			const taken = /already in use|EADDRINUSE/.test((error as Error).message);
			if (!taken || options.port || attempt === 5) throw error;
		}
	}
}

async function startN8nOnce(options: StartN8nOptions): Promise<N8nProcess> {
	const dir = n8nDir();
	const host = options.host ?? '127.0.0.1';
	const ownsFolder = !options.userFolder;
	const userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'voiceai-e2e-n8n-'));
	mkdirSync(userFolder, { recursive: true });
	const port = options.port || (await freePort());
	const brokerPort = options.brokerPort || (await freePort());
	const baseUrl = `http://${host}:${port}`;
	const webhookBase = options.webhookUrl ?? `${baseUrl}/`;
	const logFile = join(userFolder, 'n8n.log');
	if (ownsFolder && !options.fresh && !options.env?.DB_TYPE)
		cpSync(await migratedUserFolder(dir), userFolder, { recursive: true, filter: notMarker });
	if (options.install !== false) await installPackage(userFolder);

	const env: NodeJS.ProcessEnv = {
		...process.env,
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: host,
		N8N_HOST: host,
		...harnessEnv(dir),
		N8N_WEBHOOK_URL: webhookBase,
		N8N_EDITOR_BASE_URL: `${baseUrl}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		// n8n 3.0 removes the in-memory mode (1.x's default): every line runs as 3.0 will.
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		...options.env,
	};
	// A parent jest or tsx must not leak its module hooks into n8n.
	delete env.NODE_OPTIONS;

	const log: string[] = [];
	let child: ChildProcess | undefined;

	const launch = async () => {
		const stream = createWriteStream(logFile, { flags: 'a' });
		const proc = spawn(
			process.execPath,
			[...(options.nodeArgs ?? []), join(dir, 'node_modules', 'n8n', 'bin', 'n8n'), 'start'],
			{
				cwd: userFolder,
				env,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		child = proc;
		const onData = (chunk: Buffer) => {
			stream.write(chunk);
			if (options.echo) process.stdout.write(chunk);
			log.push(...chunk.toString().split('\n').filter(Boolean));
			if (log.length > 400) log.splice(0, log.length - 400);
		};
		proc.stdout?.on('data', onData);
		proc.stderr?.on('data', onData);
		let exited = false;
		proc.once('exit', (code, signal) => {
			exited = true;
			stream.end();
			if (child === proc) options.onUnexpectedExit?.(code, signal);
		});
		const outcome = await pollUntil(
			async () => {
				if (exited) return 'exited';
				const res = await fetch(`${baseUrl}/healthz/readiness`, {
					signal: AbortSignal.timeout(2_000),
				});
				if (!res.ok) return undefined;
				// n8n 1.x reports ready once its database is migrated, before its REST routes exist.
				const rest = await fetch(`${baseUrl}/rest/settings`, {
					signal: AbortSignal.timeout(2_000),
				});
				return rest.ok ? 'ready' : undefined;
			},
			{ timeoutMs: options.readyTimeoutMs ?? 120_000, intervalMs: 250, what: `n8n on ${baseUrl}` },
		).catch((error: Error) => error.message);
		if (outcome !== 'ready') {
			child = undefined;
			proc.kill('SIGKILL');
			const reason =
				outcome === 'exited' ? `n8n exited during start (port ${port} in use?)` : outcome;
			throw new Error(`${reason}\n--- last lines of n8n output ---\n${tail(40)}`);
		}
	};

	const stop = async () => {
		const proc = child;
		child = undefined;
		if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
		const exited = once(proc, 'exit');
		proc.kill('SIGTERM');
		const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
		await exited;
		clearTimeout(timer);
	};

	const tail = (lines = 30) => log.slice(-lines).join('\n');

	const removeOwnFolder = () => {
		if (ownsFolder && !process.env.VOICEAI_E2E_KEEP)
			rmSync(userFolder, { recursive: true, force: true });
	};
	try {
		await launch();
	} catch (error) {
		removeOwnFolder();
		throw error;
	}
	return {
		baseUrl,
		port,
		userFolder,
		logFile,
		webhookBase,
		pid: () => child?.pid,
		tail,
		stop,
		restart: async () => {
			await stop();
			await launch();
		},
		close: async () => {
			await stop();
			removeOwnFolder();
		},
	};
}

const COMPLETE = '.voiceai-complete';
const notMarker = (source: string) => !source.endsWith(COMPLETE);
const migrating = new Map<string, Promise<string>>();

/**
 * A user folder whose SQLite database this n8n install has migrated, made once per install and kept
 * beside it: n8n 1.123's first start migrates for minutes, 2.x's for about ten seconds, and a copy
 * starts as fast as a restart. Made by a start and a stop of n8n with nothing installed; renamed into
 * place when complete, so concurrent test processes never copy a half-made one.
 */
async function migratedUserFolder(dir: string): Promise<string> {
	const done = join(dir, '.voiceai-migrated-user-folder');
	if (existsSync(join(done, COMPLETE))) return done;
	let made = migrating.get(dir);
	if (!made) {
		made = (async () => {
			const work = `${done}.partial.${process.pid}`;
			rmSync(work, { recursive: true, force: true });
			const n8n = await startN8n({ userFolder: work, install: false, fresh: true });
			await n8n.stop();
			rmSync(n8n.logFile, { force: true });
			writeFileSync(join(work, COMPLETE), '');
			try {
				renameSync(work, done);
			} catch {
				rmSync(work, { recursive: true, force: true }); // another process finished first
			}
			return done;
		})();
		migrating.set(dir, made);
		made.catch(() => migrating.delete(dir));
	}
	return await made;
}
