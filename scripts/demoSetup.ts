/**
 * What `npm start` does the same way for a single n8n (scripts/demo.ts) and for queue mode
 * (scripts/queue-demo.ts), and `npm run dev` (scripts/dev.ts) as `npm start` does: the port options,
 * the state folder, the sandbox with its connection file, the stop on Ctrl-C, the login lines and the
 * n8n side of the demo (a credential for Acme Dental, the example workflows as shipped, CRM sync
 * published).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { startSandbox, type Sandbox } from '../sandbox';
import { connectionFile } from '../sandbox/connection';
import { DEFAULT_OWNER, REPO_ROOT, exampleNames, loadExample, type N8nApi } from '../harness/n8n';
import { SandboxAdmin } from '../harness/sandboxAdmin';

export function portOption(name: string, fallback: number): number {
	const index = process.argv.indexOf(`--${name}`);
	if (index === -1) return fallback;
	const value = Number(process.argv[index + 1]);
	if (!Number.isInteger(value) || value <= 0 || value > 65535)
		throw new Error(`--${name} needs a port number`);
	return value;
}

export const say = (line = ''): void => void process.stdout.write(`${line}\n`);

/** `.demo/<name>`, emptied: every start begins with a new n8n database, as the sandbox's keys are new. */
export function freshStateDir(name: string): string {
	const dir = join(REPO_ROOT, '.demo', name);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	return dir;
}

/** Where and how to log in to n8n, after `headline` if given. */
export function sayLogin(n8n: { baseUrl: string; logFile: string }, headline?: string): void {
	if (headline) say(headline);
	say(`  Log in:      ${n8n.baseUrl}`);
	say(`  n8n log:     ${n8n.logFile}`);
	say(`  Email:       ${DEFAULT_OWNER.email}`);
	say(`  Password:    ${DEFAULT_OWNER.password}`);
}

export interface DemoSandbox {
	sandbox: Sandbox;
	/** Stops the sandbox and removes its connection file. */
	close(): Promise<void>;
}

/** The seeded sandbox, logging each request, findable by `npm run simulate` as with `npm run sandbox`. */
export async function startDemoSandbox(port: number, tag: string): Promise<DemoSandbox> {
	say(`[${tag}] starting the sandbox Voice AI service on port ${port}`);
	const sandbox = await startSandbox({
		port,
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
	return {
		sandbox,
		close: async () => {
			await sandbox.close().catch(() => undefined);
			rmSync(connection, { force: true });
		},
	};
}

/** Runs `stop(0)` on Ctrl-C or SIGTERM, once. */
export function stopOnSignal(stop: (code: number) => Promise<void>): void {
	process.on('SIGINT', () => void stop(0));
	process.on('SIGTERM', () => void stop(0));
}

/** The one way out, for Ctrl-C, SIGTERM and failures: says `message`, runs `close` once, exits. */
export function stopper(
	message: string,
	close: () => Promise<void>,
): (code: number) => Promise<void> {
	let stopping = false;
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say(message);
		await close().catch(() => undefined);
		process.exit(code);
	};
	stopOnSignal(stop);
	return stop;
}

export interface DemoWorkflows {
	orgName: string;
	orgId: string;
	credentialName: string;
	/** "name  url" for each imported example. */
	imported: string[];
	crmWorkflowId: string;
	/** An agent of the organization, for the `npm run simulate` hint. */
	agentId: string;
}

/**
 * A credential for Acme Dental and every example workflow imported as shipped (its bytes, with only the
 * credential chosen, as a user imports it), CRM sync published.
 */
export async function setUpDemoWorkflows(
	api: N8nApi,
	sandbox: Sandbox,
	n8nUrl: string,
): Promise<DemoWorkflows> {
	const acme = sandbox.orgs.find((org) => org.id === 'org_acme') ?? sandbox.orgs[0];
	const credential = await api.createVoiceAiCredential(
		{ baseUrl: sandbox.baseUrl, apiKey: acme.apiKey },
		`Voice AI sandbox (${acme.name})`,
	);
	const imported: string[] = [];
	let crmWorkflowId = '';
	for (const name of exampleNames()) {
		const workflow = await api.importWorkflow(loadExample(name), { voiceAiApi: credential });
		imported.push(`${workflow.name}  ${n8nUrl}/workflow/${workflow.id}`);
		if (name === 'crm-sync') {
			await api.activateWorkflow(workflow);
			crmWorkflowId = workflow.id;
		}
	}
	const { agents } = await new SandboxAdmin(sandbox).state<{ agents: Array<{ id: string }> }>(
		acme.id,
	);
	return {
		orgName: acme.name,
		orgId: acme.id,
		credentialName: credential.name,
		imported,
		crmWorkflowId,
		agentId: agents[0].id,
	};
}
