import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createApp } from './app';
import { DEFAULT_DELIVERY_CONCURRENCY, DEFAULT_RETRY, Deliverer } from './delivery';
import { seedDemo, type SeededOrg } from './seed';
import type { AnswerShapes } from './shapes';
import { Store } from './store';

export interface SandboxOptions {
	port?: number;
	host?: string;
	seed?: 'demo' | 'none';
	latencyMs?: number;
	/** Requests per second per API key; 0 turns the limit off. */
	rateLimit?: number;
	/** When false, one line per public request (and internal errors) goes to `log` (default console.log). */
	quiet?: boolean;
	log?: (line: string) => void;
	deliveryRetry?: { attempts?: number; baseDelayMs?: number };
	/** Deliveries in flight at once (default DEFAULT_DELIVERY_CONCURRENCY). */
	deliveryConcurrency?: number;
	/** An attempt with no answer within this time counts as failed (default DELIVERY_TIMEOUT_MS, 10 s). */
	deliveryTimeoutMs?: number;
	/** A fixed admin token instead of a random one (the CLI's --admin-token). */
	adminToken?: string;
	/** Shapes of the answers the spec does not show (the CLI's --shapes); default documented. */
	shapes?: AnswerShapes;
}

export interface Sandbox {
	baseUrl: string;
	adminToken: string;
	orgs: SeededOrg[];
	close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const store = new Store({
		latencyMs: options.latencyMs ?? 0,
		rateLimit: options.rateLimit ?? 0,
		shapes: options.shapes ?? 'documented',
	});
	const deliverer = new Deliverer(
		store,
		{
			attempts: Math.max(1, options.deliveryRetry?.attempts ?? DEFAULT_RETRY.attempts),
			baseDelayMs: Math.max(0, options.deliveryRetry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs),
		},
		Math.max(1, options.deliveryConcurrency ?? DEFAULT_DELIVERY_CONCURRENCY),
		options.deliveryTimeoutMs,
	);
	const orgs = (options.seed ?? 'demo') === 'demo' ? seedDemo(store) : [];
	const adminToken = options.adminToken ?? randomBytes(24).toString('hex');
	const shutdown = new AbortController();
	const log =
		options.quiet === false ? (options.log ?? ((line: string) => console.log(line))) : undefined;
	const app = createApp({ store, deliverer, adminToken, shutdown: shutdown.signal, log });

	const server = createServer(app);
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const urlHost = host.includes(':') ? `[${host}]` : host;

	let closing: Promise<void> | undefined;
	return {
		baseUrl: `http://${urlHost}:${port}`,
		adminToken,
		orgs,
		close: () =>
			(closing ??= (async () => {
				shutdown.abort();
				await deliverer.close();
				const closed = new Promise<void>((resolve) => server.close(() => resolve()));
				server.closeAllConnections();
				await closed;
			})()),
	};
}
