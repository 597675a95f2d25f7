import bodyParser from 'body-parser';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { drainRequest, unsupportedMedia } from '../errors';
import type { Store } from '../store';
import { refuseKeyInBody } from './auth';

export const JSON_LIMIT_BYTES = 1024 * 1024;

const parseJson = bodyParser.json({
	limit: JSON_LIMIT_BYTES,
	strict: true,
	type: () => true,
	verify: (_req, res, buf) => {
		(res as Response).locals.bodySize = buf.length;
	},
});

function hasBody(req: Request): boolean {
	const length = req.headers['content-length'];
	if (length !== undefined) return Number(length) > 0;
	return req.headers['transfer-encoding'] !== undefined;
}

/**
 * JSON endpoints take `application/json` (any charset parameter) or no body at all; any other declared
 * content type is a 415, read to the end first so the client sees the answer.
 */
export const parseJsonBody: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
	if (!hasBody(req)) {
		req.body = undefined;
		next();
		return;
	}
	const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (type !== 'application/json') {
		void drainRequest(req).then(() =>
			next(unsupportedMedia('request body must be application/json')),
		);
		return;
	}
	parseJson(req, res, next);
};

/** Content-type check, parse, then the refusal of any API key found inside the body. */
export function jsonBody(store: Store): RequestHandler[] {
	return [parseJsonBody, refuseKeyInBody(store)];
}
