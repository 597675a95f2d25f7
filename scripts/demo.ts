/**
 * `npm start`: the sandbox Voice AI service and a real n8n with this package installed as a community
 * package, an owner account, a credential for the sandbox (org Acme Dental) and the example workflows
 * as shipped (the CRM sync one published). Ctrl-C stops both.
 *
 * Options: --port <n8n port, 5678> --sandbox-port <3001> --verbose (echo n8n's own log).
 * --queue: n8n in queue mode instead (scripts/queue-demo.ts, docs/scaling.md).
 * State lives in .demo/n8n and is reset at every start (the sandbox keeps its data in memory).
 */
import { join } from 'node:path';

import { DEFAULT_OWNER, N8nApi, startN8n, type N8nProcess } from '../harness/n8n';
import {
	freshStateDir,
	portOption,
	say,
	sayLogin,
	setUpDemoWorkflows,
	startDemoSandbox,
	stopper,
} from './demoSetup';

async function main() {
	const started = Date.now();
	const n8nPort = portOption('port', 5678);
	const sandboxPort = portOption('sandbox-port', 3001);
	const verbose = process.argv.includes('--verbose');
	const stateDir = freshStateDir('n8n');

	const demoSandbox = await startDemoSandbox(sandboxPort, 'demo');
	const { sandbox } = demoSandbox;
	let n8n: N8nProcess | undefined;
	const stop = stopper('\n[demo] stopping n8n and the sandbox', async () => {
		await n8n?.stop().catch(() => undefined);
		await demoSandbox.close();
	});

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
		const demo = await setUpDemoWorkflows(api, sandbox, n8n.baseUrl);
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		say();
		say('='.repeat(78));
		say(`n8n with n8n-nodes-voiceai is ready (${seconds} s)`);
		say();
		sayLogin(n8n);
		say();
		say(
			`  Sandbox:     ${sandbox.baseUrl}  (org ${demo.orgName}; its API key is in the credential "${demo.credentialName}")`,
		);
		say('  Workflows:');
		for (const line of demo.imported) say(`    - ${line}`);
		say(
			`  Published:   the CRM sync workflow (id ${demo.crmWorkflowId}); each run ends with the contact a CRM would get`,
		);
		say();
		const url = sandboxPort === 3001 ? '' : ` --url ${sandbox.baseUrl}`;
		say('  Simulate a completed conversation (in another terminal):');
		say(`    npm run simulate --${url} --org ${demo.orgId} --agent ${demo.agentId} \\`);
		say(
			'      --var name="Ada Lovelace" --var phone=+14155550199 --var email=ada@example.com --var intent="book a cleaning"',
		);
		say(
			'  then open Executions in n8n: the run of "Voice AI: CRM sync on conversation completion".',
		);
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
