import type { NextFunction, Request, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';

import { ApiError, drainRequest, sendError } from '../errors';
import type { Store } from '../store';
import type { Fault, Org } from '../types';

export const TIMEOUT_FAULT_MS = 30_000;
export const HUGE_FAULT_BYTES = 50 * 1024 * 1024;

export function faultMatches(fault: Fault, req: Request, orgId: string | undefined): boolean {
	if (fault.remaining !== null && fault.remaining <= 0) return false;
	if (fault.method && fault.method !== req.method) return false;
	if (fault.org && fault.org !== orgId) return false;
	if (fault.path) {
		if (fault.path.endsWith('*')) return req.path.startsWith(fault.path.slice(0, -1));
		return req.path === fault.path;
	}
	return true;
}

function streamHuge(res: Response, status: number): void {
	const chunk = Buffer.from(`"${'x'.repeat(64 * 1024 - 4)}",`);
	const head = Buffer.from('{"items":[');
	const tail = Buffer.from('"end"]}');
	const repeats = Math.floor((HUGE_FAULT_BYTES - head.length - tail.length) / chunk.length);
	res.status(status);
	res.setHeader('Content-Type', 'application/json');
	res.setHeader('Content-Length', String(head.length + repeats * chunk.length + tail.length));
	let gone = false;
	res.once('close', () => {
		gone = true;
	});
	res.write(head);
	let sent = 0;
	const pump = () => {
		while (sent < repeats && !gone) {
			sent += 1;
			if (!res.write(chunk)) return void res.once('drain', pump);
		}
		if (!gone) res.end(tail);
	};
	pump();
}

const HTML_PAGE =
	'<!DOCTYPE html>\n<html><head><title>Service temporarily unavailable</title></head>' +
	'<body><h1>We will be back soon</h1><p>The service is under maintenance.</p></body></html>\n';

async function apply(
	fault: Fault,
	req: Request,
	res: Response,
	shutdown: AbortSignal,
): Promise<void> {
	if (fault.kind === 'reset') {
		req.socket.destroy();
		return;
	}
	if (fault.kind === 'timeout') {
		// Never answer: the client gives up first, or the socket is dropped after 30 s (or at shutdown).
		await sleep(TIMEOUT_FAULT_MS, undefined, { signal: shutdown }).catch(() => undefined);
		req.socket.destroy();
		return;
	}
	await drainRequest(req);
	switch (fault.kind) {
		case 'status-500':
			return sendError(res, new ApiError(500, 'internal server error'));
		case 'status-502':
			return sendError(res, new ApiError(502, 'bad gateway'));
		case 'status-503':
			return sendError(res, new ApiError(503, 'service unavailable'), { 'Retry-After': '1' });
		case 'rate-limit':
			return sendError(res, new ApiError(429, 'rate limit exceeded'), { 'Retry-After': '1' });
		case 'rate-limit-no-retry-after':
			return sendError(res, new ApiError(429, 'rate limit exceeded'));
		case 'malformed-json':
			res
				.status(fault.status ?? 200)
				.type('application/json')
				.send('{"id": "cb_acme_support", "chatbotName": ');
			return;
		case 'html':
			res
				.status(fault.status ?? 200)
				.type('text/html')
				.send(HTML_PAGE);
			return;
		case 'huge':
			return streamHuge(res, fault.status ?? 200);
	}
}

/** Injected failures for the public API, applied after authentication (so they can be scoped to an org). */
export function injectFaults(store: Store, shutdown: AbortSignal) {
	return (req: Request, res: Response, next: NextFunction): void => {
		const org = res.locals.org as Org | undefined;
		const fault = store.faults.find((f) => faultMatches(f, req, org?.id));
		if (!fault) return next();
		if (fault.remaining !== null) fault.remaining -= 1;
		fault.hits += 1;
		res.locals.fault = fault.kind;
		apply(fault, req, res, shutdown).catch(next);
	};
}
