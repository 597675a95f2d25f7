import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { call } from '../../harness/sandboxHttp';
import { jsonBody, type Loopback, startLoopback, statusesInTurn } from '../../harness/loopback';

const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

function run(script: string, args: string[]): ChildProcess {
	return spawn(TSX, [join(ROOT, 'sandbox', script), ...args], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

function firstLine(child: ChildProcess): Promise<string> {
	return new Promise((resolve, reject) => {
		const lines = createInterface({ input: child.stdout! });
		lines.once('line', (line) => {
			lines.close();
			resolve(line);
		});
		child.once('exit', (code) => reject(new Error(`exited with ${code} before printing`)));
	});
}

function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string }> {
	let stdout = '';
	child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout })));
}

describe('sandbox command line', () => {
	let server: ChildProcess | undefined;
	let receiver: Loopback | undefined;
	afterAll(async () => {
		if (server && server.exitCode === null) {
			const exited = new Promise((resolve) => server!.once('exit', resolve));
			server.kill('SIGTERM');
			await exited;
		}
		await receiver?.close();
	});

	it('prints one JSON line first with --json, then serves; simulate delivers through it', async () => {
		server = run('cli.ts', [
			'--port',
			'0',
			'--json',
			'--seed',
			'demo',
			'--delivery-base-delay-ms',
			'5',
		]);
		const summary = JSON.parse(await firstLine(server));
		expect(summary).toEqual({
			baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
			adminToken: expect.any(String),
			orgs: [
				{ id: 'org_acme', name: 'Acme Dental', apiKey: expect.stringMatching(/^ct_/) },
				{ id: 'org_globex', name: 'Globex Telecom', apiKey: expect.stringMatching(/^ct_/) },
			],
		});
		const agents = await call(summary.baseUrl, 'GET', '/callback/standardCampaign', {
			key: summary.orgs[0].apiKey,
		});
		expect(agents.status).toBe(200);

		receiver = await startLoopback(statusesInTurn([500]));
		await call(summary.baseUrl, 'POST', '/webhook/insert-webhook', {
			key: summary.orgs[0].apiKey,
			json: { webhook: receiver.url },
		});
		const simulate = run('simulate.ts', [
			'--url',
			summary.baseUrl,
			'--org',
			'org_acme',
			'--agent',
			'agent_acme_reception',
			'--var',
			'name=Ann',
			'--json-var',
			'score=0.9',
			'--json',
		]);
		const result = await finished(simulate);
		expect(result.code).toBe(0);
		const output = JSON.parse(result.stdout.trim());
		expect(output.deliveries[0]).toMatchObject({
			status: 'delivered',
			attempts: 2,
			responseCodes: [500, 200],
		});
		expect(jsonBody(receiver.requests.at(-1)!).variables).toEqual({ name: 'Ann', score: 0.9 });
	});

	it('refuses bad flags', async () => {
		const bad = run('cli.ts', ['--seed', 'lots', '--port', '0']);
		expect((await finished(bad)).code).toBe(2);
	});
});
