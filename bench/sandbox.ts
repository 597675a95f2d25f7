/** The sandbox in its own process (see sandboxProcess.ts), with the admin calls the scenarios need. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface BenchSandbox {
	baseUrl: string;
	adminToken: string;
	apiKey: string;
	admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
	/** Sets latency and rate limit for the following requests. */
	configure(config: { latencyMs?: number; rateLimit?: number }): Promise<void>;
	/** A new empty organization with its own key (its own rate-limit window). */
	newOrg(name: string): Promise<{ id: string; apiKey: string }>;
	close(): Promise<void>;
}

export async function spawnSandbox(): Promise<BenchSandbox> {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', join(__dirname, 'sandboxProcess.ts'), '{}'],
		{
			stdio: ['pipe', 'pipe', 'inherit'],
			cwd: join(__dirname, '..'),
		},
	);
	const lines = createInterface({ input: child.stdout });
	const [first] = (await Promise.race([
		once(lines, 'line'),
		once(child, 'exit').then(() => {
			throw new Error('the sandbox process exited before it printed its connection');
		}),
	])) as [string];
	const info = JSON.parse(first) as {
		baseUrl: string;
		adminToken: string;
		orgs: Array<{ id: string; apiKey: string }>;
	};
	const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
		const res = await fetch(`${info.baseUrl}/__sandbox${path}`, {
			method,
			headers: {
				'X-Sandbox-Admin': info.adminToken,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`sandbox admin ${method} ${path}: ${res.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	};
	return {
		baseUrl: info.baseUrl,
		adminToken: info.adminToken,
		apiKey: info.orgs.find((org) => org.id === 'org_acme')!.apiKey,
		admin,
		configure: async (config) => {
			await admin('PUT', '/config', config);
		},
		newOrg: async (name) => {
			const org = await admin<{ id: string }>('POST', '/orgs', { name });
			const key = await admin<{ apiKey: string }>('POST', `/orgs/${org.id}/keys`, {
				name: 'bench',
			});
			return { id: org.id, apiKey: key.apiKey };
		},
		close: async () => {
			if (child.exitCode !== null) return;
			const exited = once(child, 'exit');
			child.stdin.end();
			await exited;
		},
	};
}
