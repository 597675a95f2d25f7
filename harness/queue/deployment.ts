/**
 * n8n 2.40.7 in queue mode, started by the project as plain processes on loopback:
 *
 *   nginx (balancer) ─ /webhook/, /webhook-waiting/, /form/ ─> webhook processors (n8n webhook) x2
 *                    └ everything else ──────────────────────> main (n8n start: editor, REST, publishing)
 *   workers (n8n worker) x2 take executions from Redis; everything shares one Postgres.
 *
 *   const queue = await startQueueDeployment({ root });   // ~25 s: servers, n8n processes, owner
 *   queue.api                                             // N8nApi on main, logged in as the owner
 *   await queue.process('worker-1').stop('SIGKILL'); await queue.process('worker-1').start();
 *   await queue.close();                                  // stops every process it started
 *
 * Each n8n process has its own user folder with the packed package installed as users install it,
 * its own ports (task broker, worker health) and the same encryption key. Used by the queue suite
 * (test/queue), `npm start -- --queue` (scripts/demo.ts) and `npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

import {
	DEFAULT_OWNER,
	N8nApi,
	freePort,
	harnessEnv,
	installPackage,
	n8nDir,
	packPackage,
} from '../n8n';
import {
	ChildServer,
	childPids,
	startNginx,
	type Balancer,
	startPostgres,
	startRedis,
	waitFor,
	type PostgresInfo,
} from './servers';

const REPO_ROOT = resolve(__dirname, '..', '..');

export type N8nRole = 'main' | 'webhook' | 'worker';

export interface N8nServer {
	name: string;
	role: N8nRole;
	/** HTTP port: the editor/REST (main), webhooks (webhook processor), health (worker). */
	port: number;
	userFolder: string;
	/** Its stdout and stderr. */
	logFile: string;
	readonly pid: number | undefined;
	start(): Promise<void>;
	/** SIGTERM waits for n8n's graceful shutdown; SIGKILL takes the process group down like a crash. */
	stop(signal?: NodeJS.Signals): Promise<void>;
	/** CPU seconds (user + system) of the process and its children so far. */
	cpuSeconds(): number;
	/** Each start: when the process was spawned and when /healthz/readiness first answered 200 (ms). */
	readonly starts: ReadonlyArray<{ spawned: number; ready?: number }>;
	tail(lines?: number): string;
}

export interface QueueDeploymentOptions {
	/** Folder for data and logs; must be empty or absent. */
	root: string;
	webhookProcessors?: number;
	workers?: number;
	/** Worker concurrency (n8n's default is 10). */
	concurrency?: number;
	/** Balancer port; 0 or omitted: a free one. */
	port?: number;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	log?: (line: string) => void;
	/** Called when a process exits that nobody asked to stop. */
	onUnexpectedExit?: (name: string, code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface QueueDeployment {
	root: string;
	balancerUrl: string;
	mainUrl: string;
	postgres: Omit<PostgresInfo, 'server'>;
	api: N8nApi;
	servers: N8nServer[];
	process(name: string): N8nServer;
	/** CPU seconds so far of every process of the deployment (with its children), by name. */
	cpuSeconds(): Record<string, number>;
	/** A client on one database of the deployment's Postgres (n8n's is "n8n"); close it after use. */
	sql(database?: string): Promise<Client>;
	close(): Promise<void>;
}

export async function startQueueDeployment(
	options: QueueDeploymentOptions,
): Promise<QueueDeployment> {
	const log = options.log ?? (() => undefined);
	const root = options.root;
	mkdirSync(root, { recursive: true });
	execFileSync('bash', [join(REPO_ROOT, 'scripts', 'queue', 'install-servers.sh')], {
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const dir = n8nDir();
	// VOICEAI_QUEUE_TARBALL: another build of the package (e.g. main's, to compare with it).
	const tarball = process.env.VOICEAI_QUEUE_TARBALL ?? (await packPackage());
	const backing: ChildServer[] = [];
	const n8nServers: N8nServer[] = [];
	let balancer: Balancer | undefined;
	let closing = false;
	const close = async () => {
		closing = true;
		await balancer?.server.stop('SIGTERM').catch(() => undefined);
		await Promise.allSettled(n8nServers.map((server) => server.stop('SIGTERM')));
		// SIGINT is Postgres's fast shutdown (SIGTERM would wait for every client to leave).
		await Promise.allSettled(
			backing.map((server) => server.stop(server.name === 'Postgres' ? 'SIGINT' : 'SIGTERM')),
		);
	};
	try {
		const [pgPort, redisPort, balancerPort, mainPort] = await Promise.all([
			freePort(),
			freePort(),
			options.port ? Promise.resolve(options.port) : freePort(),
			freePort(),
		]);
		log(`starting Postgres (port ${pgPort}) and Redis (port ${redisPort})`);
		const [pgStart, redisStart] = await Promise.allSettled([
			startPostgres(root, pgPort),
			startRedis(root, redisPort),
		]);
		// Whichever started is stopped by close() when the other could not start.
		if (pgStart.status === 'fulfilled') backing.push(pgStart.value.server);
		if (redisStart.status === 'fulfilled') backing.push(redisStart.value);
		if (pgStart.status === 'rejected') throw pgStart.reason;
		if (redisStart.status === 'rejected') throw redisStart.reason;
		const pg = pgStart.value;
		const postgres = { host: pg.host, port: pg.port, user: pg.user, password: pg.password };
		const admin = new Client({ ...postgres, database: 'postgres' });
		await admin.connect();
		for (const db of ['n8n', 'crm'])
			await admin.query(`CREATE DATABASE ${db}`).catch(() => undefined);
		await admin.end();

		const balancerUrl = `http://127.0.0.1:${balancerPort}`;
		const common: NodeJS.ProcessEnv = {
			...process.env,
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: postgres.password,
			// n8n's default pool of 2 connections, pinged every 2 s with a 5 s timeout, is exhausted under
			// load: the ping fails and the process answers every request 503 "Database is not ready!".
			DB_POSTGRESDB_POOL_SIZE: '10',
			DB_PING_TIMEOUT_MS: '15000',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redisPort),
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			...harnessEnv(dir),
			N8N_WEBHOOK_URL: `${balancerUrl}/`,
			N8N_EDITOR_BASE_URL: `${balancerUrl}/`,
			...options.env,
		};
		delete common.NODE_OPTIONS;

		const makeServer = async (name: string, role: N8nRole, port?: number): Promise<N8nServer> => {
			const userFolder = join(root, name);
			mkdirSync(userFolder, { recursive: true });
			await installPackage(userFolder, tarball);
			const httpPort = port ?? (await freePort());
			const env: NodeJS.ProcessEnv = { ...common, N8N_USER_FOLDER: userFolder };
			const args = [join(dir, 'node_modules', 'n8n', 'bin', 'n8n')];
			if (role === 'main') {
				Object.assign(env, {
					N8N_PORT: String(httpPort),
					N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				});
				args.push('start');
			} else if (role === 'webhook') {
				Object.assign(env, { N8N_PORT: String(httpPort) });
				args.push('webhook');
			} else {
				Object.assign(env, {
					N8N_RUNNERS_BROKER_PORT: String(await freePort()),
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(httpPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				});
				args.push('worker', `--concurrency=${options.concurrency ?? 10}`);
			}
			const child = new ChildServer(`n8n ${name}`, join(root, `${name}.log`));
			child.onUnexpectedExit((code, signal) => {
				if (!closing) options.onUnexpectedExit?.(name, code, signal);
			});
			const starts: Array<{ spawned: number; ready?: number }> = [];
			const server: N8nServer = {
				name,
				role,
				port: httpPort,
				userFolder,
				logFile: child.logFile,
				starts,
				get pid() {
					return child.pid;
				},
				start: async () => {
					// A webhook processor that starts again gets traffic only once it is ready.
					if (role === 'webhook') await balancer?.setInRotation(httpPort, false);
					const start: { spawned: number; ready?: number } = { spawned: Date.now() };
					starts.push(start);
					child.spawn(process.execPath, args, { env, cwd: userFolder });
					const ready = async () =>
						(await fetch(`http://127.0.0.1:${httpPort}/healthz/readiness`)).ok;
					await waitFor(
						child,
						ready,
						`/healthz/readiness answering 200 on port ${httpPort}`,
						120_000,
					);
					start.ready = Date.now();
					if (role === 'webhook') await balancer?.setInRotation(httpPort, true);
				},
				stop: async (signal = 'SIGTERM') => await child.stop(signal),
				cpuSeconds: () => (child.pid ? treeCpuSeconds(child.pid) : 0),
				tail: (lines) => child.tail(lines),
			};
			return server;
		};

		log(`starting n8n main on port ${mainPort} (runs the database migrations)`);
		const main = await makeServer('main', 'main', mainPort);
		n8nServers.push(main);
		await main.start();
		const others: N8nServer[] = [];
		for (let i = 1; i <= (options.webhookProcessors ?? 2); i++)
			others.push(await makeServer(`webhook-${i}`, 'webhook'));
		for (let i = 1; i <= (options.workers ?? 2); i++)
			others.push(await makeServer(`worker-${i}`, 'worker'));
		n8nServers.push(...others);
		log(`starting ${others.map((s) => s.name).join(', ')}`);
		await Promise.all(others.map((server) => server.start()));
		const webhookPorts = others.filter((s) => s.role === 'webhook').map((s) => s.port);
		log(`starting nginx on ${balancerUrl}`);
		balancer = await startNginx(root, {
			port: balancerPort,
			main: mainPort,
			webhookProcessors: webhookPorts,
		});

		const api = await N8nApi.setupOwner(`http://127.0.0.1:${mainPort}`, DEFAULT_OWNER);
		const servers = [main, ...others];
		return {
			root,
			balancerUrl,
			mainUrl: `http://127.0.0.1:${mainPort}`,
			postgres,
			api,
			servers,
			process: (name) => {
				const server = servers.find((s) => s.name === name);
				if (!server)
					throw new Error(
						`no process named ${name} (have ${servers.map((s) => s.name).join(', ')})`,
					);
				return server;
			},
			cpuSeconds: () => {
				const byName: Record<string, number> = {};
				for (const server of servers) byName[server.name] = server.cpuSeconds();
				for (const server of [...backing, ...(balancer ? [balancer.server] : [])]) {
					byName[server.name] = server.pid ? treeCpuSeconds(server.pid) : 0;
				}
				return byName;
			},
			sql: async (database = 'n8n') => {
				const client = new Client({ ...postgres, database });
				await client.connect();
				return client;
			},
			close,
		};
	} catch (error) {
		await close();
		throw error;
	}
}

/** utime + stime of a process and all its descendants, in seconds (from /proc). */
export function treeCpuSeconds(pid: number): number {
	const ticks = 100; // USER_HZ on Linux
	let total = 0;
	const visit = (id: number) => {
		try {
			const stat = readFileSync(`/proc/${id}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			total += (Number(fields[11]) + Number(fields[12])) / ticks;
			for (const child of childPids(id)) visit(child);
		} catch {
			// the process ended meanwhile
		}
	};
	visit(pid);
	return total;
}
