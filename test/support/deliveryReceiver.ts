import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
	path: string;
	headers: IncomingHttpHeaders;
	body: any;
}

/** A small local webhook receiver that answers with the scripted statuses, then 200. */
export class Receiver {
	readonly received: Received[] = [];
	private constructor(
		private readonly server: Server,
		readonly url: string,
	) {}

	static async start(statuses: number[] = []): Promise<Receiver> {
		const script = [...statuses];
		let receiver: Receiver | undefined;
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				receiver!.received.push({
					path: req.url ?? '',
					headers: req.headers,
					body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
				});
				res.statusCode = script.shift() ?? 200;
				res.end('ok');
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		return receiver;
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}
