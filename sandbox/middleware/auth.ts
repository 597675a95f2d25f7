import type { NextFunction, Request, Response } from 'express';

import { type ApiError, drainRequest, sendError, unauthorized } from '../errors';
import { KEY_IN_TEXT, KEY_PATTERN } from '../keys';
import type { Store } from '../store';

/** Query parameter names that can only mean "here is my key". */
const KEY_PARAM_NAMES = [
	'api_key',
	'apikey',
	'api-key',
	'x-api-key',
	'key',
	'token',
	'access_token',
];

export type AuthForm = 'bearer' | 'x-api-key' | 'both' | 'none';

function refuse(req: Request, res: Response, err: ApiError): void {
	void drainRequest(req).then((complete) => {
		if (!complete) res.setHeader('Connection', 'close');
		sendError(res, err, { 'WWW-Authenticate': 'Bearer' });
	});
}

/**
 * A key must never travel in a URL. Any key-shaped value in the query string is refused; a real key found
 * there is marked exposed (it keeps working from headers, but the admin API shows it for rotation).
 */
export function refuseKeyInQuery(store: Store) {
	return (req: Request, res: Response, next: NextFunction): void => {
		const rawQuery = req.originalUrl.includes('?')
			? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1)
			: '';
		if (rawQuery === '') return next();
		let decoded = rawQuery;
		try {
			decoded = decodeURIComponent(rawQuery.replace(/\+/g, ' '));
		} catch {
			// A malformed escape leaves the raw text to be searched.
		}
		const found = [
			...new Set(
				[...decoded.matchAll(KEY_IN_TEXT), ...rawQuery.matchAll(KEY_IN_TEXT)].map((m) => m[0]),
			),
		];
		for (const candidate of found) {
			const record = store.findKey(candidate);
			if (record) record.exposed = true;
		}
		const names = new URLSearchParams(rawQuery);
		const keyParam = [...names.keys()].some((name) => KEY_PARAM_NAMES.includes(name.toLowerCase()));
		if (found.length || keyParam) {
			res.locals.keyInQuery = true;
			return refuse(req, res, unauthorized('API keys must be sent in a header, never in the URL'));
		}
		next();
	};
}

function readHeaders(req: Request): { form: AuthForm; key?: string; error?: string } {
	const authorization = req.headers.authorization;
	const xApiKey = req.headers['x-api-key'];
	let bearer: string | undefined;
	if (authorization !== undefined) {
		const match = /^Bearer ([^\s]+)$/i.exec(authorization.trim());
		if (!match) return { form: 'bearer', error: 'Authorization header must be "Bearer <API key>"' };
		bearer = match[1];
	}
	if (Array.isArray(xApiKey))
		return { form: 'x-api-key', error: 'X-API-Key header must be sent once' };
	const headerKey = xApiKey?.trim();
	if (bearer !== undefined && headerKey !== undefined) {
		if (bearer !== headerKey)
			return { form: 'both', error: 'Authorization and X-API-Key hold different keys' };
		return { form: 'both', key: bearer };
	}
	if (bearer !== undefined) return { form: 'bearer', key: bearer };
	if (headerKey !== undefined) return { form: 'x-api-key', key: headerKey };
	return {
		form: 'none',
		error: 'missing API key: send Authorization: Bearer <key> or X-API-Key: <key>',
	};
}

/** Authorization: Bearer <key> or X-API-Key: <key>; the organization of the key becomes the tenant. */
export function authenticate(store: Store) {
	return (req: Request, res: Response, next: NextFunction): void => {
		const { form, key, error } = readHeaders(req);
		res.locals.authForm = form;
		if (error || key === undefined)
			return refuse(req, res, unauthorized(error ?? 'missing API key'));
		if (!KEY_PATTERN.test(key)) return refuse(req, res, unauthorized('malformed API key'));
		const record = store.findKey(key);
		const org = record && store.orgs.get(record.orgId);
		if (!record || !org || record.revoked)
			return refuse(req, res, unauthorized('invalid or revoked API key'));
		record.last_used_at = new Date().toISOString();
		res.locals.key = record;
		res.locals.org = org;
		next();
	};
}

/** Any known key inside a JSON body (anywhere, at any depth) makes the request a 401. */
export function refuseKeyInBody(store: Store) {
	return (req: Request, res: Response, next: NextFunction): void => {
		if (req.body !== undefined && bodyHoldsKey(store, req.body)) {
			return refuse(
				req,
				res,
				unauthorized('API keys must be sent in a header, never in a request body'),
			);
		}
		next();
	};
}

export function textHoldsKey(store: Store, text: string): boolean {
	for (const match of text.matchAll(KEY_IN_TEXT)) if (store.findKey(match[0])) return true;
	return false;
}

function bodyHoldsKey(store: Store, body: unknown): boolean {
	// Iterative walk: a deeply nested hostile body must not overflow the stack.
	const pending: unknown[] = [body];
	while (pending.length) {
		const value = pending.pop();
		if (typeof value === 'string') {
			if (value.includes('ct_') && textHoldsKey(store, value)) return true;
		} else if (value !== null && typeof value === 'object') {
			for (const [name, inner] of Object.entries(value)) {
				if (name.includes('ct_') && textHoldsKey(store, name)) return true;
				pending.push(inner);
			}
		}
	}
	return false;
}
