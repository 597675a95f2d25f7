import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';

import { newId } from './keys';
import type { Store } from './store';
import type { Delivery, DeliveryPayload, Org } from './types';

export interface RetryPolicy {
	/** Total attempts, the first one included. */
	attempts: number;
	/** Wait before attempt n+1 is baseDelayMs * 2^(n-1). */
	baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500 };
/** Deliveries in flight at once, across all webhooks (the CLI's --delivery-concurrency). */
export const DEFAULT_DELIVERY_CONCURRENCY = 64;
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Posts conversation results to webhooks with undici, retrying non-2xx answers and network errors. */
export class Deliverer {
	private readonly agent: Agent;
	private readonly shutdown = new AbortController();
	private readonly running = new Set<Promise<void>>();

	private inFlight = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(
		private readonly store: Store,
		private readonly retry: RetryPolicy,
		private readonly concurrency = DEFAULT_DELIVERY_CONCURRENCY,
		timeoutMs = DELIVERY_TIMEOUT_MS,
	) {
		this.agent = new Agent({
			connect: { timeout: timeoutMs },
			headersTimeout: timeoutMs,
			bodyTimeout: timeoutMs,
		});
	}

	/** One attempt holds a slot; waits between attempts do not. */
	private async slot<T>(attempt: () => Promise<T>): Promise<T> {
		if (this.inFlight >= this.concurrency)
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.inFlight++;
		try {
			return await attempt();
		} finally {
			this.inFlight--;
			this.waiting.shift()?.();
		}
	}

	enqueue(org: Org, target: Delivery['target'], url: string, payload: DeliveryPayload): Delivery {
		const delivery: Delivery = {
			id: newId('dlv', 16),
			orgId: org.id,
			conversationId: payload.conversation_id,
			target,
			url,
			status: 'pending',
			attempts: 0,
			responseCodes: [],
			errors: [],
			created_at: new Date().toISOString(),
			completed_at: null,
			payload,
		};
		this.store.deliveries.push(delivery);
		const run = this.run(delivery).finally(() => this.running.delete(run));
		this.running.add(run);
		return delivery;
	}

	private async run(delivery: Delivery): Promise<void> {
		const signal = this.shutdown.signal;
		const body = JSON.stringify(delivery.payload);
		for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
			if (signal.aborted) return;
			delivery.attempts = attempt;
			try {
				const statusCode = await this.slot(async () => {
					const res = await request(delivery.url, {
						method: 'POST',
						dispatcher: this.agent,
						signal,
						headers: {
							'content-type': 'application/json',
							'user-agent': 'voiceai-sandbox-webhooks/1.0',
							'x-voiceai-delivery': delivery.id,
							'x-voiceai-attempt': String(attempt),
						},
						body,
					});
					await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
					return res.statusCode;
				});
				delivery.responseCodes.push(statusCode);
				delivery.errors.push(null);
				if (statusCode >= 200 && statusCode < 300) {
					delivery.status = 'delivered';
					delivery.completed_at = new Date().toISOString();
					return;
				}
			} catch (err) {
				if (signal.aborted) return;
				delivery.responseCodes.push(null);
				delivery.errors.push(
					String((err as { code?: string }).code ?? (err as Error).message ?? 'network error'),
				);
			}
			if (attempt < this.retry.attempts) {
				const waited = await sleep(this.retry.baseDelayMs * 2 ** (attempt - 1), true, {
					signal,
				}).catch(() => false);
				if (!waited) return;
			}
		}
		delivery.status = 'failed';
		delivery.completed_at = new Date().toISOString();
	}

	async close(): Promise<void> {
		this.shutdown.abort();
		await Promise.allSettled([...this.running]);
		await this.agent.destroy().catch(() => undefined);
	}
}
