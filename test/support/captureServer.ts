/** A plain HTTP server that records what arrives (headers as Node parsed them) and answers 401, or 200 []. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
}

export function captureServer(
	answer: (request: CapturedRequest) => number = (r) =>
		/^(Bearer )?ct_\S+$/.test(String(r.headers.authorization ?? r.headers['x-api-key'] ?? ''))
			? 200
			: 401,
) {
	let server: Server | undefined;
	const requests: CapturedRequest[] = [];
	return {
		requests,
		url: '',
		async start() {
			server = createServer((req, res) => {
				const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
				requests.push(request);
				req.resume();
				const status = answer(request);
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(
					status === 200
						? '[]'
						: JSON.stringify({ error: { status, code: 'unauthorized', message: 'unauthorized' } }),
				);
			});
			await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
			this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		},
		async stop() {
			await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
		},
		clear() {
			requests.length = 0;
		},
	};
}
