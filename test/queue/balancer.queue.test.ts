/**
 * The deployment's balancer (nginx, harness/queue/servers.ts) in front of two plain HTTP servers
 * standing in for webhook processors: a processor out of rotation gets no request, one put back gets
 * its share again, and a request in flight across the reload is answered.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { freePort } from '../../harness/n8n';
import { childPids, startNginx, type Balancer } from '../../harness/queue/servers';

let root: string;
let balancer: Balancer;
let url: string;
const processors: Array<{ name: string; port: number; server: Server }> = [];

beforeAll(async () => {
	execFileSync('bash', [resolve(__dirname, '..', '..', 'scripts', 'queue', 'install-servers.sh')], {
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	root = mkdtempSync(join(tmpdir(), 'voiceai-balancer-'));
	for (const name of ['one', 'two']) {
		const port = await freePort();
		const server = createServer((req, res) => {
			const delay = req.url?.includes('slow') ? 800 : 0;
			setTimeout(() => res.end(name), delay);
		});
		await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
		processors.push({ name, port, server });
	}
	const [port, main] = await Promise.all([freePort(), freePort()]);
	balancer = await startNginx(root, {
		port,
		main,
		webhookProcessors: processors.map((p) => p.port),
	});
	url = `http://127.0.0.1:${port}/webhook/x`;
}, 120_000);

afterAll(async () => {
	await balancer?.server.stop('SIGTERM');
	for (const { server } of processors) server.close();
	if (root && !process.env.VOICEAI_E2E_KEEP) rmSync(root, { recursive: true, force: true });
});

/**
 * A POST on a new connection: a reload closes idle kept-alive connections, and a POST sent on one at
 * that moment fails without an answer (the service's retry policy is what covers that, not this test).
 */
function post(path = ''): Promise<{ status: number; body: string }> {
	return new Promise((done, fail) => {
		const req = request(`${url}${path}`, { method: 'POST', agent: false }, (res) => {
			let body = '';
			res.on('data', (chunk) => (body += chunk));
			res.on('end', () => done({ status: res.statusCode ?? 0, body }));
		});
		req.on('error', fail);
		req.end('{}');
	});
}

async function answers(count: number): Promise<Record<string, number>> {
	const byName: Record<string, number> = {};
	for (let i = 0; i < count; i++) {
		const { status, body } = await post();
		expect(status).toBe(200);
		byName[body] = (byName[body] ?? 0) + 1;
	}
	return byName;
}

test('a processor out of rotation gets nothing; put back, it gets its share again', async () => {
	expect(await answers(20)).toEqual({ one: 10, two: 10 });
	await balancer.setInRotation(processors[0].port, false);
	expect(await answers(20)).toEqual({ two: 20 });
	await balancer.setInRotation(processors[0].port, true);
	expect(await answers(20)).toEqual({ one: 10, two: 10 });
});

test('a request in flight while the balancer reloads is answered', async () => {
	const slow = post('/slow');
	await new Promise((r) => setTimeout(r, 100));
	await balancer.setInRotation(processors[1].port, false);
	const { status, body } = await slow;
	expect(status).toBe(200);
	expect(['one', 'two']).toContain(body);
	expect(await answers(6)).toEqual({ one: 6 });
	await balancer.setInRotation(processors[1].port, true);
});

test('taking out a processor already out changes nothing and needs no reload', async () => {
	const workers = () => childPids(balancer.server.pid as number);
	await balancer.setInRotation(processors[0].port, false);
	const before = workers();
	await balancer.setInRotation(processors[0].port, false);
	expect(workers()).toEqual(before);
	expect(await answers(4)).toEqual({ two: 4 });
	await balancer.setInRotation(processors[0].port, true);
});
