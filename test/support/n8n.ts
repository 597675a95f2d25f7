/**
 * Real-n8n harness: starts the pinned n8n (from VOICEAI_N8N_DIR, see scripts/n8n-install.sh) with this
 * package installed the way n8n installs a community package, and drives it over n8n's own REST API.
 * Used by the e2e suite, `npm start` (scripts/demo.ts) and the benchmarks.
 *
 *   const stack = await startStack();                    // ./stack.ts: sandbox + n8n + owner + credential
 *   const n8n = await startN8n();                        // free port, temp user folder, package installed
 *   const api = await N8nApi.setupOwner(n8n.baseUrl);    // owner account, logged-in client
 *   const cred = await api.createVoiceAiCredential({ baseUrl: sandbox.baseUrl, apiKey });
 *   const wf = await api.importWorkflow(loadExample('crm-sync'), { voiceAiApi: cred });
 *   await api.activateWorkflow(wf);
 *   const runs = await api.waitForExecutions(wf.id, { count: 2 });
 *   await n8n.restart(); await api.login();              // same user folder, same port
 *   await n8n.close();                                   // stops it and removes a temp user folder
 *
 * - Installing: `npm pack` of the repo (exactly what npm publishes), unpacked into
 *   `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-voiceai`; node types are then
 *   `n8n-nodes-voiceai.voiceAi` and `n8n-nodes-voiceai.voiceAiTrigger` (NODE_TYPES). Build first.
 * - Process: loopback only, its own free port and task-broker port, telemetry and update checks off,
 *   production webhooks at `http://127.0.0.1:<port>/webhook/...` (N8N_WEBHOOK_URL). Output goes to
 *   `<userFolder>/n8n.log`; `tail()` returns its end for error messages.
 * - REST: cookie session plus the `browser-id` header n8n 2.x binds sessions to. Execution data
 *   comes back "flatted"; getExecution() decodes it with n8n's own copy of `flatted`.
 * - Waiting: pollUntil() with a bounded timeout everywhere; no fixed sleeps.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
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
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-voiceai';
export const NODE_TYPES = {
	action: `${PACKAGE_NAME}.voiceAi`,
	trigger: `${PACKAGE_NAME}.voiceAiTrigger`,
} as const;
export const CREDENTIAL_TYPE = 'voiceAiApi';

export const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'VoiceAi-demo-2026',
};
export type Owner = typeof DEFAULT_OWNER;

/** The n8n lines the package is tested on (scripts/n8n-lines.json, the one place naming them). */
export const N8N_LINES = JSON.parse(
	readFileSync(join(REPO_ROOT, 'scripts', 'n8n-lines.json'), 'utf8'),
) as {
	primary: string;
	lines: Array<{ version: string; role: string; editor: boolean }>;
	everyLine: string[];
};

/** Where scripts/n8n-install.sh puts n8n `version` (VOICEAI_CACHE as in scripts/node24.sh). */
export function installDir(version = N8N_LINES.primary): string {
	const cache = process.env.VOICEAI_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-voiceai');
	return join(cache, `n8n-${version}`);
}

/**
 * Folder of the n8n install under test: VOICEAI_N8N_DIR (scripts/run.sh exports what
 * scripts/n8n-install.sh prints), else the primary line's install in the cache when it is there.
 */
export function n8nDir(): string {
	const dir = process.env.VOICEAI_N8N_DIR ?? installDir();
	if (!existsSync(join(dir, 'node_modules', 'n8n', 'bin', 'n8n'))) {
		throw new Error(
			'VOICEAI_N8N_DIR must point at a real n8n install: run `export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"`',
		);
	}
	return dir;
}

/** Version of the n8n install in `dir` (VOICEAI_N8N_DIR): the e2e suites run on more than one. */
export function n8nVersion(dir = n8nDir()): string {
	return (
		JSON.parse(readFileSync(join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8')) as {
			version: string;
		}
	).version;
}

/** Whether this n8n has the backend module `name` (N8N_DISABLED_MODULES accepts only known ones). */
function knowsModule(dir: string, name: string): boolean {
	const list = join(
		dir,
		'node_modules',
		'@n8n',
		'backend-common',
		'dist',
		'modules',
		'modules.config.js',
	);
	return existsSync(list) && readFileSync(list, 'utf8').includes(`'${name}'`);
}

// ---------------------------------------------------------------------------------------------------
// Waiting

/** Calls `check` until it returns something other than undefined, null or false (errors count as "not yet"). */
export async function pollUntil<T>(
	check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
	{ timeoutMs = 30_000, intervalMs = 200, what = 'condition' } = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== null && value !== false) return value;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() > deadline) {
			const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
		}
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}

export async function freePort(): Promise<number> {
	const server = createServer();
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	server.close();
	await once(server, 'close');
	return port;
}

// ---------------------------------------------------------------------------------------------------
// Installing the package as a community package

let packed: Promise<string> | undefined;

/** `npm pack` of the built repo, once per process. Returns the tarball path. */
export async function packPackage(): Promise<string> {
	if (!existsSync(join(REPO_ROOT, 'dist', 'nodes'))) {
		throw new Error('dist/ is missing: run `npm run build` first');
	}
	packed ??= (async () => {
		const out = mkdtempSync(join(tmpdir(), 'voiceai-pack-'));
		process.once('exit', () => rmSync(out, { recursive: true, force: true }));
		const { stdout } = await execFileAsync(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', out],
			{ cwd: REPO_ROOT },
		);
		const [{ filename }] = JSON.parse(stdout) as Array<{ filename: string }>;
		return join(out, filename);
	})();
	return await packed;
}

/** Unpacks the tarball where n8n keeps installed community packages. */
export async function installPackage(userFolder: string, tarball?: string): Promise<string> {
	const file = tarball ?? (await packPackage());
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	mkdirSync(target, { recursive: true });
	await execFileAsync('tar', ['-xzf', file, '-C', target, '--strip-components=1']);
	const version = (
		JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { version: string }
	).version;
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify(
			{ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: version } },
			null,
			2,
		),
	);
	return target;
}

// ---------------------------------------------------------------------------------------------------
// The n8n process

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

export async function startN8n(options: StartN8nOptions = {}): Promise<N8nProcess> {
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
		N8N_PROTOCOL: 'http',
		N8N_WEBHOOK_URL: webhookBase,
		N8N_EDITOR_BASE_URL: `${baseUrl}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// n8n 3.0 removes the in-memory mode (1.x's default): every line runs as 3.0 will.
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		// Its refresh task calls api.n8n.io and logs a stack trace per attempt when offline. n8n 1.x has
		// no such module and refuses to start when an unknown one is named.
		...(knowsModule(dir, 'mcp-registry') ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		GENERIC_TIMEZONE: 'UTC',
		NODE_ENV: 'production',
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

const PAGE = 100;
const EXECUTION_STATUSES = [
	'canceled',
	'crashed',
	'error',
	'new',
	'running',
	'success',
	'unknown',
	'waiting',
];

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

// ---------------------------------------------------------------------------------------------------
// REST client

export interface WorkflowJson {
	name: string;
	nodes: Array<{
		name: string;
		type: string;
		webhookId?: string;
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		[key: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

export interface SavedWorkflow {
	id: string;
	versionId: string;
	name: string;
	active: boolean;
	nodes: WorkflowJson['nodes'];
}

export interface CredentialRef {
	id: string;
	name: string;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt?: string;
}

export interface ExecutionDetail extends ExecutionSummary {
	/** Output items (json only) of each node's last run. */
	outputs: Record<string, Array<Record<string, unknown>>>;
	/** The same items with the input item each is paired with. */
	items: Record<string, Array<{ json: Record<string, unknown>; pairedItem?: unknown }>>;
	/** Error message of the run, if it failed. */
	error?: string;
	lastNodeExecuted?: string;
}

export class N8nApiError extends Error {
	constructor(
		readonly status: number,
		readonly body: string,
		what: string,
	) {
		super(`${what} → HTTP ${status}: ${body.slice(0, 500)}`);
	}
}

const BROWSER_ID = 'voiceai-e2e-harness';

export class N8nApi {
	private cookie = '';
	private projectIdCache?: string;

	constructor(
		readonly baseUrl: string,
		readonly owner: Owner = DEFAULT_OWNER,
	) {}

	/** Creates the owner account of a fresh n8n and returns a logged-in client. */
	static async setupOwner(baseUrl: string, owner: Owner = DEFAULT_OWNER): Promise<N8nApi> {
		const api = new N8nApi(baseUrl, owner);
		await api.request('POST', '/rest/owner/setup', owner);
		return api;
	}

	async login(): Promise<void> {
		await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: this.owner.email,
			password: this.owner.password,
		});
	}

	async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const headers: Record<string, string> = {
			'browser-id': BROWSER_ID,
			accept: 'application/json',
		};
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const res = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(60_000),
		});
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await res.text();
		if (!res.ok) throw new N8nApiError(res.status, text, `${method} ${path}`);
		if (!text) return undefined as T;
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	/** Node type names n8n has loaded (`GET /types/nodes.json`). */
	async nodeTypeNames(): Promise<string[]> {
		const res = await fetch(`${this.baseUrl}/types/nodes.json`, {
			headers: { cookie: this.cookie, 'browser-id': BROWSER_ID },
		});
		if (!res.ok) throw new N8nApiError(res.status, await res.text(), 'GET /types/nodes.json');
		const types = (await res.json()) as Array<{ name: string }>;
		return [...new Set(types.map((t) => t.name))];
	}

	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<CredentialRef> {
		const created = await this.request<{ id: string; name: string }>('POST', '/rest/credentials', {
			name,
			type,
			data,
		});
		return { id: created.id, name: created.name };
	}

	async createVoiceAiCredential(
		data: { baseUrl: string; apiKey: string; authHeader?: 'bearer' | 'xApiKey' },
		name = 'Voice AI (sandbox)',
	): Promise<CredentialRef> {
		return await this.createCredential(name, CREDENTIAL_TYPE, { authHeader: 'bearer', ...data });
	}

	/**
	 * Creates a workflow from JSON. Every node credential whose type is a key of `credentials` is
	 * pointed at the given credential (example files carry placeholder ids), and webhook nodes get a
	 * fresh webhookId as the editor's import does, so one file can be imported more than once.
	 */
	async importWorkflow(
		workflow: WorkflowJson,
		credentials: Record<string, CredentialRef> = {},
	): Promise<SavedWorkflow> {
		const nodes = workflow.nodes.map((original) => {
			const node = original.webhookId ? { ...original, webhookId: randomUUID() } : original;
			if (!node.credentials) return node;
			const mapped = Object.fromEntries(
				Object.entries(node.credentials).map(([type, ref]) => [type, credentials[type] ?? ref]),
			);
			return { ...node, credentials: mapped };
		});
		return await this.request<SavedWorkflow>('POST', '/rest/workflows', {
			name: workflow.name,
			nodes,
			connections: workflow.connections,
			settings: workflow.settings ?? { executionOrder: 'v1' },
			active: false,
		});
	}

	/** Production URL of a webhook node of a saved workflow (`<base>/webhook/<webhookId>/<path>`). */
	productionWebhookUrl(
		webhookBase: string,
		workflow: SavedWorkflow,
		nodeName: string,
		path = 'webhook',
	): string {
		const node = workflow.nodes.find((n) => n.name === nodeName);
		if (!node?.webhookId) throw new Error(`node "${nodeName}" has no webhookId`);
		return `${webhookBase.replace(/\/+$/, '')}/webhook/${node.webhookId}/${path}`;
	}

	async getWorkflow(id: string): Promise<SavedWorkflow> {
		return await this.request<SavedWorkflow>('GET', `/rest/workflows/${id}`);
	}

	/** Publishes the workflow (its triggers go live) and waits until n8n reports it active. */
	async activateWorkflow(workflow: { id: string }): Promise<SavedWorkflow> {
		const current = await this.getWorkflow(workflow.id);
		await this.request('POST', `/rest/workflows/${workflow.id}/activate`, {
			versionId: current.versionId,
		});
		return await pollUntil(
			async () => {
				const wf = await this.getWorkflow(workflow.id);
				return wf.active ? wf : undefined;
			},
			{ timeoutMs: 15_000, what: `workflow ${workflow.id} active` },
		);
	}

	async deactivateWorkflow(workflow: { id: string }): Promise<void> {
		await this.request('POST', `/rest/workflows/${workflow.id}/deactivate`, {});
	}

	/**
	 * Runs a workflow as "Execute workflow" in the editor does, from the given trigger node, and waits
	 * for the execution to finish.
	 */
	async runWorkflow(
		workflow: { id: string },
		triggerNodeName: string,
		{ timeoutMs = 60_000 } = {},
	): Promise<ExecutionDetail> {
		const started = await this.request<{ executionId?: string; waitingForWebhook?: boolean }>(
			'POST',
			`/rest/workflows/${workflow.id}/run`,
			await this.manualRunBody(workflow, triggerNodeName),
		);
		if (!started.executionId)
			throw new Error(`n8n did not start a run: ${JSON.stringify(started)}`);
		const id = started.executionId;
		await pollUntil(
			async () => {
				const ex = await this.request<{ finished: boolean; status: string }>(
					'GET',
					`/rest/executions/${id}`,
				);
				return ex && !['new', 'running', 'waiting'].includes(ex.status);
			},
			{ timeoutMs, what: `execution ${id} to finish` },
		);
		return await this.getExecution(id);
	}

	/**
	 * "Listen for test event" on a trigger node: n8n registers the node's test webhook and waits for
	 * one event (the run then shows up in the executions as mode "manual").
	 */
	async listenForTestEvent(workflow: { id: string }, triggerNodeName: string): Promise<void> {
		const answer = await this.request<{ waitingForWebhook?: boolean }>(
			'POST',
			`/rest/workflows/${workflow.id}/run`,
			await this.manualRunBody(workflow, triggerNodeName),
		);
		if (!answer?.waitingForWebhook)
			throw new Error(`n8n is not listening for a test event: ${JSON.stringify(answer)}`);
	}

	/**
	 * Body of a manual run. n8n 1.x runs the workflow the editor sends (`workflowData`); 2.x loads the
	 * saved one and ignores that field.
	 */
	private async manualRunBody(
		workflow: { id: string },
		triggerNodeName: string,
	): Promise<Record<string, unknown>> {
		return {
			workflowData: await this.request('GET', `/rest/workflows/${workflow.id}`),
			triggerToStartFrom: { name: triggerNodeName },
		};
	}

	/**
	 * Every execution (of the workflow), newest first. n8n 2.41 refuses pages over 100, and n8n reads
	 * `lastId` only with a status filter: later pages name every status.
	 */
	async listExecutions(workflowId?: string): Promise<ExecutionSummary[]> {
		const all: ExecutionSummary[] = [];
		let lastId: string | undefined;
		for (;;) {
			const filter = {
				...(workflowId ? { workflowId } : {}),
				...(lastId ? { status: EXECUTION_STATUSES } : {}),
			};
			const page = await this.request<{ results: ExecutionSummary[] }>(
				'GET',
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify(filter))}&limit=${PAGE}` +
					(lastId ? `&lastId=${lastId}` : ''),
			);
			all.push(
				...page.results.map((e) => ({ ...e, id: String(e.id), workflowId: String(e.workflowId) })),
			);
			if (page.results.length < PAGE) return all;
			lastId = all[all.length - 1].id;
		}
	}

	/** Waits until the workflow has at least `count` finished executions; returns them all, oldest first. */
	async waitForExecutions(
		workflowId: string,
		{ count = 1, timeoutMs = 30_000 } = {},
	): Promise<ExecutionSummary[]> {
		return await pollUntil(
			async () => {
				const all = await this.listExecutions(workflowId);
				const done = all.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
				return done.length >= count ? done.sort((a, b) => Number(a.id) - Number(b.id)) : undefined;
			},
			{ timeoutMs, what: `${count} execution(s) of workflow ${workflowId}` },
		);
	}

	async getExecution(id: string): Promise<ExecutionDetail> {
		const raw = await this.request<ExecutionSummary & { data: string; workflowId: string }>(
			'GET',
			`/rest/executions/${id}`,
		);
		const data = parseFlatted(raw.data) as {
			resultData: {
				runData: Record<
					string,
					Array<{
						data?: {
							main?: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }> | null>;
						};
					}>
				>;
				error?: { message?: string; description?: string };
				lastNodeExecuted?: string;
			};
		};
		const outputs: ExecutionDetail['outputs'] = {};
		const items: ExecutionDetail['items'] = {};
		for (const [node, runs] of Object.entries(data.resultData.runData ?? {})) {
			const last = runs[runs.length - 1];
			items[node] = (last?.data?.main ?? []).flatMap((branch) =>
				(branch ?? []).map(({ json, pairedItem }) => ({ json, pairedItem })),
			);
			outputs[node] = items[node].map((item) => item.json);
		}
		const error = data.resultData.error;
		return {
			id: String(raw.id),
			workflowId: String(raw.workflowId),
			mode: raw.mode,
			status: raw.status,
			startedAt: raw.startedAt,
			stoppedAt: raw.stoppedAt,
			outputs,
			items,
			error: error ? [error.message, error.description].filter(Boolean).join(': ') : undefined,
			lastNodeExecuted: data.resultData.lastNodeExecuted,
		};
	}

	async personalProjectId(): Promise<string> {
		this.projectIdCache ??= (
			await this.request<{ id: string }>('GET', '/rest/projects/personal')
		).id;
		return this.projectIdCache;
	}

	async createDataTable(
		name: string,
		columns: Array<{ name: string; type: 'string' | 'number' | 'boolean' | 'date' }>,
	): Promise<{ id: string; name: string }> {
		const project = await this.personalProjectId();
		return await this.request('POST', `/rest/projects/${project}/data-tables`, { name, columns });
	}

	async dataTableRows(tableId: string): Promise<Array<Record<string, unknown>>> {
		const project = await this.personalProjectId();
		const page = await this.request<{ data: Array<Record<string, unknown>> }>(
			'GET',
			`/rest/projects/${project}/data-tables/${tableId}/rows?take=1000`,
		);
		return page.data;
	}
}

function parseFlatted(text: string): unknown {
	const requireFromN8n = createRequire(join(n8nDir(), 'node_modules', 'n8n', 'package.json'));
	const flatted = requireFromN8n('flatted') as { parse(text: string): unknown };
	return flatted.parse(text);
}

// ---------------------------------------------------------------------------------------------------
// Example workflows

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

export function loadExample(name: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, `${name}.json`), 'utf8')) as WorkflowJson;
}

/** The CRM stand-in of examples/crm-sync.json: an n8n Data Table the workflow upserts contacts into. */
export const CRM_TABLE = {
	name: 'CRM contacts',
	columns: [
		{ name: 'phone', type: 'string' },
		{ name: 'name', type: 'string' },
		{ name: 'email', type: 'string' },
		{ name: 'intent', type: 'string' },
		{ name: 'conversation_id', type: 'string' },
		{ name: 'completed_at', type: 'string' },
		{ name: 'source', type: 'string' },
	] as Array<{ name: string; type: 'string' }>,
};
