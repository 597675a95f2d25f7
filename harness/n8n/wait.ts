/** Bounded waiting, and free ports. */
import { once } from 'node:events';
import { createServer } from 'node:net';

/** Calls `check` until it returns something other than undefined, null or false (errors count as "not yet"). */
export async function pollUntil<T>(
	check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
	{ timeoutMs = 30_000, intervalMs = 200, what = 'condition' } = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== null && value !== false) return value;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() > deadline) {
			const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
		}
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}

export async function freePort(): Promise<number> {
	const server = createServer();
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	server.close();
	await once(server, 'close');
	return port;
}
