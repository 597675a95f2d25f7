/**
 * `npm start`: the sandbox Voice AI service and a real n8n with this package installed as a community
 * package, an owner account, a credential for the sandbox (org Acme Dental), the CRM stand-in table
 * and the example workflows (the CRM sync one published). Ctrl-C stops both.
 *
 * Options: --port <n8n port, 5678> --sandbox-port <3001> --verbose (echo n8n's own log).
 * --queue: n8n in queue mode instead (scripts/queue-demo.ts, docs/scaling.md).
 * State lives in .demo/n8n and is reset at every start (the sandbox keeps its data in memory).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox } from '../sandbox';
import { connectionFile } from '../sandbox/connection';
import { SandboxAdmin } from '../test/e2e/sandbox-admin';
import {
	CRM_TABLE,
	DEFAULT_OWNER,
	EXAMPLES_DIR,
	N8nApi,
	REPO_ROOT,
	loadExample,
	startN8n,
	type N8nProcess,
} from '../test/e2e/harness';

function option(name: string, fallback: number): number {
	const index = process.argv.indexOf(`--${name}`);
	if (index === -1) return fallback;
	const value = Number(process.argv[index + 1]);
	if (!Number.isInteger(value) || value <= 0 || value > 65535)
		throw new Error(`--${name} needs a port number`);
	return value;
}

const say = (line = '') => process.stdout.write(`${line}\n`);

async function main() {
	const started = Date.now();
	const n8nPort = option('port', 5678);
	const sandboxPort = option('sandbox-port', 3001);
	const verbose = process.argv.includes('--verbose');
	const stateDir = join(REPO_ROOT, '.demo', 'n8n');
	if (existsSync(stateDir)) rmSync(stateDir, { recursive: true, force: true });
	mkdirSync(stateDir, { recursive: true });

	say(`[demo] starting the sandbox Voice AI service on port ${sandboxPort}`);
	const sandbox = await startSandbox({
		port: sandboxPort,
		seed: 'demo',
		quiet: false,
		log: (line) => say(`[sandbox] ${line}`),
	});
	// Lets `npm run simulate` find this sandbox's admin token, as with `npm run sandbox`.
	const connection = connectionFile(sandbox.baseUrl);
	writeFileSync(
		connection,
		JSON.stringify({ baseUrl: sandbox.baseUrl, adminToken: sandbox.adminToken }),
		{
			mode: 0o600,
		},
	);
	let n8n: N8nProcess | undefined;
	let stopping = false;
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say('\n[demo] stopping n8n and the sandbox');
		await n8n?.stop().catch(() => undefined);
		await sandbox.close().catch(() => undefined);
		rmSync(connection, { force: true });
		process.exit(code);
	};
	process.on('SIGINT', () => void stop(0));
	process.on('SIGTERM', () => void stop(0));

	try {
		say(`[demo] starting n8n on port ${n8nPort} (state in ${stateDir})`);
		n8n = await startN8n({
			userFolder: stateDir,
			port: n8nPort,
			echo: verbose,
			onUnexpectedExit: (code) => {
				process.stderr.write(
					`[demo] n8n exited unexpectedly (code ${code}); see ${join(stateDir, 'n8n.log')}\n`,
				);
				void stop(1);
			},
		});
		const api = await N8nApi.setupOwner(n8n.baseUrl, DEFAULT_OWNER);
		const acme = sandbox.orgs.find((org) => org.id === 'org_acme') ?? sandbox.orgs[0];
		const credential = await api.createVoiceAiCredential(
			{ baseUrl: sandbox.baseUrl, apiKey: acme.apiKey },
			`Voice AI sandbox (${acme.name})`,
		);
		await api.createDataTable(CRM_TABLE.name, CRM_TABLE.columns);
		const imported: string[] = [];
		let crmWorkflowId = '';
		for (const file of readdirSync(EXAMPLES_DIR)
			.filter((f) => f.endsWith('.json'))
			.sort()) {
			const name = file.replace(/\.json$/, '');
			const workflow = await api.importWorkflow(loadExample(name), { voiceAiApi: credential });
			imported.push(`${workflow.name}  ${n8n.baseUrl}/workflow/${workflow.id}`);
			if (name === 'crm-sync') {
				await api.activateWorkflow(workflow);
				crmWorkflowId = workflow.id;
			}
		}
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		say();
		say('='.repeat(78));
		say(`n8n with n8n-nodes-voiceai is ready (${seconds} s)`);
		say();
		say(`  Log in:      ${n8n.baseUrl}`);
		say(`  n8n log:     ${n8n.logFile}`);
		say(`  Email:       ${DEFAULT_OWNER.email}`);
		say(`  Password:    ${DEFAULT_OWNER.password}`);
		say();
		say(
			`  Sandbox:     ${sandbox.baseUrl}  (org ${acme.name}; its API key is in the credential "${credential.name}")`,
		);
		say('  Workflows:');
		for (const line of imported) say(`    - ${line}`);
		say(
			`  Published:   the CRM sync workflow (id ${crmWorkflowId}); contacts land in the Data Table "${CRM_TABLE.name}"`,
		);
		say();
		const agents = (
			await new SandboxAdmin(sandbox).state<{ agents: Array<{ id: string }> }>(acme.id)
		).agents;
		const url = sandboxPort === 3001 ? '' : ` --url ${sandbox.baseUrl}`;
		say('  Simulate a completed conversation (in another terminal):');
		say(`    npm run simulate --${url} --org ${acme.id} --agent ${agents[0].id} \\`);
		say(
			'      --var name="Ada Lovelace" --var phone=+14155550199 --var email=ada@example.com --var intent="book a cleaning"',
		);
		say('  then open Executions in n8n, and Overview > Data tables > CRM contacts.');
		say();
		say('  Ctrl-C stops n8n and the sandbox.');
		say('='.repeat(78));
	} catch (error) {
		process.stderr.write(`[demo] failed: ${(error as Error).message}\n`);
		if (n8n) process.stderr.write(`[demo] n8n log: ${n8n.logFile}\n`);
		await stop(1);
	}
}

(process.argv.includes('--queue')
	? import('./queue-demo').then((m) => m.queueDemo())
	: main()
).catch((error: Error) => {
	process.stderr.write(`[demo] failed: ${error.message}\n`);
	process.exit(1);
});
