import type { NextFunction, Request, Response } from 'express';

import { KEY_IN_TEXT } from '../keys';
import type { Store } from '../store';
import type { ApiKeyRecord, Org } from '../types';

function redactedQuery(req: Request): Record<string, string | string[]> {
	const raw = req.originalUrl.includes('?')
		? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1)
		: '';
	const out: Record<string, string | string[]> = Object.create(null);
	for (const [name, value] of new URLSearchParams(raw)) {
		const safe = value.replace(KEY_IN_TEXT, 'ct_[redacted]');
		const safeName = name.replace(KEY_IN_TEXT, 'ct_[redacted]');
		const previous = out[safeName];
		out[safeName] =
			previous === undefined ? safe : [...(Array.isArray(previous) ? previous : [previous]), safe];
	}
	return { ...out };
}

/** Records every public request once it has been answered (or the client went away). */
export function requestLog(store: Store, log?: (line: string) => void) {
	return (req: Request, res: Response, next: NextFunction): void => {
		const started = Date.now();
		let written = false;
		const write = () => {
			if (written) return;
			written = true;
			const org = res.locals.org as Org | undefined;
			const key = res.locals.key as ApiKeyRecord | undefined;
			const status = res.headersSent ? res.statusCode : 0;
			const declared = Number(req.headers['content-length'] ?? 0);
			store.logRequest({
				at: new Date(started).toISOString(),
				method: req.method,
				path: req.path,
				query: redactedQuery(req),
				orgId: org?.id ?? null,
				keyId: key?.id ?? null,
				auth: res.locals.authForm ?? 'none',
				status,
				contentType: req.headers['content-type'] ?? null,
				bodySize:
					typeof res.locals.bodySize === 'number'
						? res.locals.bodySize
						: Number.isFinite(declared)
							? declared
							: 0,
			});
			log?.(
				`${req.method} ${req.path} ${status || 'no answer'} ${Date.now() - started}ms${org ? ` ${org.id}` : ''}`,
			);
		};
		res.on('finish', write);
		res.on('close', write);
		next();
	};
}
