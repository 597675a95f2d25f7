/**
 * `npm start -- --queue`: the sandbox Voice AI service and n8n in queue mode as the project starts it
 * (test/support/queue: Postgres, Redis, nginx in front of two webhook processors and main, two
 * workers), with an owner, a credential for the sandbox, the CRM Data Table and the example workflows
 * (CRM sync published). Ctrl-C stops every process. Layout and guarantees: docs/scaling.md.
 *
 * Options: --port <balancer port, 5678> --sandbox-port <3001>. State lives in .demo/queue, reset at every start.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox } from '../sandbox';
import { connectionFile } from '../sandbox/connection';
import { SandboxAdmin } from '../test/e2e/sandbox-admin';
import {
	CRM_TABLE,
	DEFAULT_OWNER,
	EXAMPLES_DIR,
	REPO_ROOT,
	loadExample,
} from '../test/e2e/harness';
import { startQueueDeployment, type QueueDeployment } from '../test/support/queue/deployment';

function option(name: string, fallback: number): number {
	const index = process.argv.indexOf(`--${name}`);
	if (index === -1) return fallback;
	const value = Number(process.argv[index + 1]);
	if (!Number.isInteger(value) || value <= 0 || value > 65535)
		throw new Error(`--${name} needs a port number`);
	return value;
}

const say = (line = '') => process.stdout.write(`${line}\n`);

export async function queueDemo(): Promise<void> {
	const started = Date.now();
	const root = join(REPO_ROOT, '.demo', 'queue');
	if (existsSync(root)) rmSync(root, { recursive: true, force: true });
	const sandboxPort = option('sandbox-port', 3001);
	say(`[queue demo] starting the sandbox Voice AI service on port ${sandboxPort}`);
	const sandbox = await startSandbox({
		port: sandboxPort,
		seed: 'demo',
		quiet: false,
		log: (line) => say(`[sandbox] ${line}`),
	});
	const connection = connectionFile(sandbox.baseUrl);
	writeFileSync(
		connection,
		JSON.stringify({ baseUrl: sandbox.baseUrl, adminToken: sandbox.adminToken }),
		{ mode: 0o600 },
	);

	let deployment: QueueDeployment | undefined;
	let stopping = false;
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say(
			'\n[queue demo] stopping nginx, n8n (main, webhook processors, workers), Redis, Postgres and the sandbox',
		);
		await deployment?.close().catch(() => undefined);
		await sandbox.close().catch(() => undefined);
		rmSync(connection, { force: true });
		process.exit(code);
	};
	process.on('SIGINT', () => void stop(0));
	process.on('SIGTERM', () => void stop(0));

	try {
		deployment = await startQueueDeployment({
			root,
			port: option('port', 5678),
			log: (line) => say(`[queue demo] ${line}`),
			onUnexpectedExit: (name, code, signal) => {
				process.stderr.write(
					`[queue demo] ${name} exited unexpectedly (${signal ?? `code ${code}`}); see ${join(root, `${name}.log`)}\n`,
				);
				void stop(1);
			},
		});
		const { api } = deployment;
		const acme = sandbox.orgs.find((org) => org.id === 'org_acme') ?? sandbox.orgs[0];
		const credential = await api.createVoiceAiCredential(
			{ baseUrl: sandbox.baseUrl, apiKey: acme.apiKey },
			`Voice AI sandbox (${acme.name})`,
		);
		await api.createDataTable(CRM_TABLE.name, CRM_TABLE.columns);
		for (const file of readdirSync(EXAMPLES_DIR)
			.filter((f) => f.endsWith('.json'))
			.sort()) {
			const workflow = await api.importWorkflow(loadExample(file.replace(/\.json$/, '')), {
				voiceAiApi: credential,
			});
			if (file === 'crm-sync.json') await api.activateWorkflow(workflow);
		}
		say();
		say('='.repeat(78));
		say(
			`n8n in queue mode with n8n-nodes-voiceai is ready (${((Date.now() - started) / 1000).toFixed(1)} s)`,
		);
		say();
		say(
			`  Log in:      ${deployment.balancerUrl}   (${DEFAULT_OWNER.email} / ${DEFAULT_OWNER.password})`,
		);
		for (const server of deployment.servers)
			say(
				`  ${server.name.padEnd(12)} pid ${server.pid}, port ${server.port}, log ${join(root, `${server.name}.log`)}`,
			);
		say(
			`  Postgres     127.0.0.1:${deployment.postgres.port} (user postgres, password in ${join(root, 'postgres.password')})`,
		);
		say(
			`  Balancer log ${join(root, 'nginx', 'access.log')} (which process answered each request)`,
		);
		say(`  Sandbox:     ${sandbox.baseUrl}; the CRM sync workflow is published.`);
		const agents = (
			await new SandboxAdmin(sandbox).state<{ agents: Array<{ id: string }> }>(acme.id)
		).agents;
		say(
			`  Simulate a conversation: npm run simulate -- --url ${sandbox.baseUrl} --org ${acme.id} --agent ${agents[0].id} --var name=Ada --var phone=+14155550199`,
		);
		say();
		say('  Ctrl-C stops every process.');
		say('='.repeat(78));
	} catch (error) {
		process.stderr.write(`[queue demo] failed: ${(error as Error).message}\n`);
		await stop(1);
	}
}
