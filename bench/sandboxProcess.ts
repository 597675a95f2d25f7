/**
 * Child-process entry: starts the sandbox (startSandbox from sandbox/) and prints its connection as one
 * JSON line. The bench talks to it over loopback from another process, as n8n talks to a remote service,
 * so the sandbox's own work is not counted against the client being measured. Ends when stdin closes.
 */
import { startSandbox } from '../sandbox';

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as { latencyMs?: number; rateLimit?: number };
	const sandbox = await startSandbox({ ...options, port: 0, seed: 'demo', quiet: true });
	process.stdout.write(
		`${JSON.stringify({ baseUrl: sandbox.baseUrl, adminToken: sandbox.adminToken, orgs: sandbox.orgs })}\n`,
	);
	const stop = () => void sandbox.close().then(() => process.exit(0));
	process.stdin.on('end', stop);
	process.stdin.resume();
	process.on('SIGTERM', stop);
}

void main();
