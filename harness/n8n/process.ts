/**
 * The n8n process: started on a free port with the package installed, restarted, stopped; migrated user
 * folders. Each process's output goes to its log file, which is checked for webhook tokens (below): under
 * jest, a test file that started an n8n fails when a token reached that n8n's log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
	cpSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
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
	/** Webhook tokens in n8n's log so far, masked (webhookTokensIn): none is the only right answer. */
	tokensInLog(): string[];
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
	const tokensInLog = () =>
		existsSync(logFile) ? webhookTokensIn(readFileSync(logFile, 'utf8')) : [];
	const started: StartedN8n = { logFile, tokensInLog, closed: false };
	startedHere.push(started);
	return {
		baseUrl,
		port,
		userFolder,
		logFile,
		webhookBase,
		pid: () => child?.pid,
		tail,
		tokensInLog,
		stop,
		restart: async () => {
			await stop();
			await launch();
		},
		// The log is read before the folder goes: a leak keeps the folder and fails the close.
		close: async () => {
			await stop();
			started.tokens = tokensInLog();
			started.closed = true;
			if (started.tokens.length > 0) throw new Error(leakMessage([started]));
			removeOwnFolder();
		},
	};
}

const leakMessage = (leaks: Array<{ logFile: string; tokens?: string[] }>) =>
	`A webhook token (a secret like the API key) is in n8n's log; the user folder is kept:\n${leaks
		.map(({ logFile, tokens }) => `${logFile}: ${(tokens ?? []).join(', ')}`)
		.join('\n')}`;

/**
 * A webhook token is a secret like the API key: n8n must never write one to its log (issue 50). Finds
 * every `token=` query value (as a Voice AI webhook URL carries it; also percent- or JSON-escaped) and
 * every value given in `secrets`; returns them masked (first 4 characters and length), never whole.
 */
export function webhookTokensIn(log: string, secrets: Iterable<string> = []): string[] {
	const found = new Set<string>();
	const query = /(?:[?&]|\\u0026|%3[Ff]|%26)token(?:=|%3[Dd])([A-Za-z0-9_%-]{8,})/g;
	for (const match of log.matchAll(query)) found.add(match[1]);
	for (const secret of secrets) if (secret.length >= 8 && log.includes(secret)) found.add(secret);
	return [...found].map((token) => `${token.slice(0, 4)}… (${token.length} characters)`);
}

interface StartedN8n {
	logFile: string;
	tokensInLog(): string[];
	closed: boolean;
	tokens?: string[];
}

/** The n8n processes this module started: under jest, those of one test file (jest loads modules per file). */
const startedHere: StartedN8n[] = [];

/** The tokens each n8n process started here has written to its log (closed ones: read at close). */
export function tokensInLogs(): Array<{ logFile: string; tokens: string[] }> {
	return startedHere
		.map(({ logFile, tokensInLog, closed, tokens }) => ({
			logFile,
			tokens: closed ? (tokens ?? []) : tokensInLog(),
		}))
		.filter(({ tokens }) => tokens.length > 0);
}

// Declared when a test file loads the harness, so before its own hooks: it runs while that file's n8n
// still runs (its log on disk) and fails the file on a leak. Outside jest (the demo, the benchmark) nothing.
// Hooks declared later in the file (its unpublishing, closing) run after this check: close() checks again.
if (typeof afterAll === 'function')
	afterAll(() => {
		const leaks = tokensInLogs();
		if (leaks.length > 0) throw new Error(leakMessage(leaks));
	});

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
