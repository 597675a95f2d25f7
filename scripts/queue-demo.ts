/**
 * `npm start -- --queue`: the sandbox Voice AI service and n8n in queue mode as the project starts it
 * (harness/queue: Postgres, Redis, nginx in front of two webhook processors and main, two
 * workers), with an owner, a credential for the sandbox, the CRM Data Table and the example workflows
 * (CRM sync published). Ctrl-C stops every process. Layout and guarantees: docs/scaling.md.
 *
 * Options: --port <balancer port, 5678> --sandbox-port <3001>. State lives in .demo/queue, reset at every start.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { DEFAULT_OWNER, REPO_ROOT } from '../harness/n8n';
import { startQueueDeployment, type QueueDeployment } from '../harness/queue/deployment';
import { portOption, say, setUpDemoWorkflows, startDemoSandbox, stopOnSignal } from './demoSetup';

export async function queueDemo(): Promise<void> {
	const started = Date.now();
	const root = join(REPO_ROOT, '.demo', 'queue');
	if (existsSync(root)) rmSync(root, { recursive: true, force: true });
	const demoSandbox = await startDemoSandbox(portOption('sandbox-port', 3001), 'queue demo');
	const { sandbox } = demoSandbox;

	let deployment: QueueDeployment | undefined;
	let stopping = false;
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say(
			'\n[queue demo] stopping nginx, n8n (main, webhook processors, workers), Redis, Postgres and the sandbox',
		);
		await deployment?.close().catch(() => undefined);
		await demoSandbox.close();
		process.exit(code);
	};
	stopOnSignal(stop);

	try {
		deployment = await startQueueDeployment({
			root,
			port: portOption('port', 5678),
			log: (line) => say(`[queue demo] ${line}`),
			onUnexpectedExit: (name, code, signal) => {
				process.stderr.write(
					`[queue demo] ${name} exited unexpectedly (${signal ?? `code ${code}`}); see ${join(root, `${name}.log`)}\n`,
				);
				void stop(1);
			},
		});
		const demo = await setUpDemoWorkflows(deployment.api, sandbox, deployment.balancerUrl);
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
		say(
			`  Simulate a conversation: npm run simulate -- --url ${sandbox.baseUrl} --org ${demo.orgId} --agent ${demo.agentId} --var name=Ada --var phone=+14155550199`,
		);
		say();
		say('  Ctrl-C stops every process.');
		say('='.repeat(78));
	} catch (error) {
		process.stderr.write(`[queue demo] failed: ${(error as Error).message}\n`);
		await stop(1);
	}
}
