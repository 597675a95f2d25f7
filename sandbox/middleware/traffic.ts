import type { NextFunction, Request, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';

import { ApiError, drainRequest, sendError } from '../errors';
import type { Store } from '../store';
import type { ApiKeyRecord } from '../types';

/** Adds the configured latency before any public request is handled. */
export function latency(store: Store, signal: AbortSignal) {
	return (_req: Request, _res: Response, next: NextFunction): void => {
		const ms = store.config.latencyMs;
		if (ms <= 0) return next();
		sleep(ms, undefined, { signal }).then(
			() => next(),
			() => undefined,
		);
	};
}

interface Window {
	start: number;
	count: number;
}

/**
 * Fixed one-second windows per API key. Past the limit: 429 with Retry-After (whole seconds until the
 * window ends, at least 1). Every answer carries X-RateLimit-Limit and X-RateLimit-Remaining when on.
 */
export function rateLimit(store: Store) {
	const windows = new Map<string, Window>();
	return (req: Request, res: Response, next: NextFunction): void => {
		const limit = store.config.rateLimit;
		const key = res.locals.key as ApiKeyRecord | undefined;
		if (limit <= 0 || !key) return next();
		const now = Date.now();
		let window = windows.get(key.id);
		if (!window || now - window.start >= 1000) {
			window = { start: now, count: 0 };
			windows.set(key.id, window);
		}
		window.count += 1;
		res.setHeader('X-RateLimit-Limit', String(limit));
		res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - window.count)));
		if (window.count <= limit) return next();
		const retryAfter = Math.max(1, Math.ceil((window.start + 1000 - now) / 1000));
		void drainRequest(req).then(() =>
			sendError(res, new ApiError(429, `rate limit of ${limit} requests per second exceeded`), {
				'Retry-After': String(retryAfter),
			}),
		);
	};
}
