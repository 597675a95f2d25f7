import type { ErrorRequestHandler, Request, Response } from 'express';

import { isPublic, shapesOf } from './shapes';

/** The error body of every status in the documented shapes (the variant shapes answer with text/plain). */
export interface ErrorBody {
	error: { status: number; code: string; message: string; field?: string };
}

const CODES: Record<number, string> = {
	400: 'bad_request',
	401: 'unauthorized',
	404: 'not_found',
	409: 'conflict',
	413: 'payload_too_large',
	415: 'unsupported_media_type',
	429: 'rate_limited',
	500: 'internal_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
};

export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly field?: string,
		readonly code: string = field !== undefined && status === 400
			? 'invalid_field'
			: (CODES[status] ?? 'error'),
	) {
		super(message);
	}

	body(): ErrorBody {
		const error: ErrorBody['error'] = {
			status: this.status,
			code: this.code,
			message: this.message,
		};
		if (this.field !== undefined) error.field = this.field;
		return { error };
	}
}

export const badField = (field: string, message: string) =>
	new ApiError(400, `${field} ${message}`, field);
export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string, field?: string) =>
	new ApiError(409, message, field, 'conflict');
export const unauthorized = (message: string) => new ApiError(401, message);
export const tooLarge = (message: string, field?: string) =>
	new ApiError(413, message, field, 'payload_too_large');
export const unsupportedMedia = (message: string, field?: string) =>
	new ApiError(415, message, field, 'unsupported_media_type');

export function sendError(
	res: Response,
	err: ApiError,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent) return;
	for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
	if (isPublic(res) && shapesOf(res) !== 'documented')
		res.status(err.status).type('text/plain').send(err.message);
	else res.status(err.status).json(err.body());
}

/** Errors thrown by the router, body-parser and zlib; mapped to the sandbox's statuses with generic messages. */
function fromFramework(err: {
	type?: string;
	status?: number;
	code?: string;
}): ApiError | undefined {
	if (err instanceof URIError) return badRequest('the URL holds a malformed percent-encoding');
	if (typeof err.code === 'string' && err.code.startsWith('Z_'))
		return badRequest('request body could not be decompressed');
	switch (err.type) {
		case 'entity.too.large':
			return tooLarge('request body exceeds the 1 MiB JSON limit');
		case 'entity.parse.failed':
			return badRequest('request body is not valid JSON');
		case 'charset.unsupported':
		case 'encoding.unsupported':
			return unsupportedMedia('unsupported body charset or content encoding');
		case 'request.size.invalid':
		case 'request.aborted':
			return badRequest('request body was incomplete');
		default:
			return undefined;
	}
}

/**
 * Reads and discards what is left of a request body, so an early error answer reaches the client instead of
 * a reset socket. Bodies past `maxBytes` are not read further: the socket closes after the answer.
 */
const abandoned = new WeakSet<Request>();

export function drainRequest(req: Request, maxBytes = 64 * 1024 * 1024): Promise<boolean> {
	if (abandoned.has(req)) return Promise.resolve(false);
	if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve(true);
	return new Promise((resolve) => {
		let seen = 0;
		const done = (ok: boolean) => {
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onEnd);
			req.off('close', onEnd);
			resolve(ok);
		};
		const onData = (chunk: Buffer) => {
			seen += chunk.length;
			if (seen > maxBytes) {
				abandoned.add(req);
				req.pause();
				done(false);
			}
		};
		const onEnd = () => done(true);
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onEnd);
		req.on('close', onEnd);
		req.resume();
	});
}

export function errorHandler(log?: (line: string) => void): ErrorRequestHandler {
	return (err, req, res, _next) => {
		let apiError: ApiError;
		if (err instanceof ApiError) apiError = err;
		else {
			apiError = fromFramework(err ?? {}) ?? new ApiError(500, 'internal server error');
			if (apiError.status === 500 && log)
				log(`sandbox internal error: ${String(err?.stack ?? err)}`);
		}
		void drainRequest(req).then((complete) => {
			if (!complete) res.setHeader('Connection', 'close');
			sendError(res, apiError);
		});
	};
}
