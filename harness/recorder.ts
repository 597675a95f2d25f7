/**
 * A pass-through HTTP proxy in front of the sandbox that keeps every request byte for byte (URL,
 * headers, body), so a test can prove where an API key travelled. Faults pass through: when the
 * sandbox drops a connection the client's is dropped too; when the client gives up, so does the proxy.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

export async function startRecorder(
	upstream: string,
): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
	const target = new URL(upstream);
	const requests: RecordedRequest[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
			const out = request(
				{
					host: target.hostname,
					port: target.port,
					method: req.method,
					path: req.url,
					headers: { ...req.headers, host: target.host },
				},
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
					answer.on('error', () => res.destroy());
				},
			);
			out.on('error', () => res.socket?.destroy());
			res.on('close', () => out.destroy());
			out.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
