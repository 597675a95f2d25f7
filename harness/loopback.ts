/**
 * The tests' one recording HTTP server: a free loopback port that records every request (method, URL,
 * headers, body) and answers through a handler the test sets: a redirecting front, a second origin
 * that must see nothing, a service that echoes secrets back, an endless answer, a webhook receiver
 * whose first deliveries fail. Not the sandbox: these answers are ones the sandbox has no reason to
 * give. (recorder.ts is a proxy in front of the sandbox, not a server of its own.)
 */
import {
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

export type Handler = (
	request: SeenRequest,
	res: ServerResponse,
	req: IncomingMessage,
) => void | Promise<void>;

export interface Loopback {
	/** http://127.0.0.1:<port>, no trailing slash. */
	url: string;
	requests: SeenRequest[];
	handle(handler: Handler): void;
	close(): Promise<void>;
}

export const json = (
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void => {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
};

/** Answers the given statuses in turn, then 200: a webhook receiver whose first deliveries fail. */
export const statusesInTurn = (statuses: number[]): Handler => {
	const script = [...statuses];
	return (_, res) => {
		res.statusCode = script.shift() ?? 200;
		res.end('ok');
	};
};

/** A recorded request's body read as JSON. */
export const jsonBody = (request: SeenRequest): any => JSON.parse(request.body.toString('utf8'));

/** Clears the recorded requests, e.g. before each test of a server started once. */
export const forgetRequests = (loopback: Loopback): void => {
	loopback.requests.length = 0;
};

export async function startLoopback(
	handler: Handler = (_, res) => json(res, 200, []),
): Promise<Loopback> {
	let current = handler;
	const requests: SeenRequest[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const seen = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks),
			};
			requests.push(seen);
			Promise.resolve(current(seen, res, req)).catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		handle: (next) => {
			current = next;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
