/**
 * A minimal client of the V8 inspector of another Node.js process (started with --inspect=host:port),
 * enough to start and stop its CPU profiler around a load window.
 */
export interface CpuProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: CpuProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

export class Inspector {
	private nextId = 1;
	private readonly pending = new Map<
		number,
		{ resolve: (value: unknown) => void; reject: (error: Error) => void }
	>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as {
				id?: number;
				result?: unknown;
				error?: { message: string };
			};
			const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
			if (!waiter || message.id === undefined) return;
			this.pending.delete(message.id);
			if (message.error) waiter.reject(new Error(message.error.message));
			else waiter.resolve(message.result);
		});
	}

	static async connect(host: string, port: number): Promise<Inspector> {
		const targets = (await (await fetch(`http://${host}:${port}/json/list`)).json()) as Array<{
			webSocketDebuggerUrl: string;
		}>;
		const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
		await new Promise<void>((resolve, reject) => {
			socket.addEventListener('open', () => resolve(), { once: true });
			socket.addEventListener(
				'error',
				() => reject(new Error(`cannot open the inspector on ${host}:${port}`)),
				{ once: true },
			);
		});
		return new Inspector(socket);
	}

	async send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = this.nextId++;
		const answer = new Promise<unknown>((resolve, reject) =>
			this.pending.set(id, { resolve, reject }),
		);
		this.socket.send(JSON.stringify({ id, method, params }));
		return (await answer) as T;
	}

	async startProfiling(intervalUs: number): Promise<void> {
		await this.send('Profiler.enable');
		await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
		await this.send('Profiler.start');
	}

	async stopProfiling(): Promise<CpuProfile> {
		return (await this.send<{ profile: CpuProfile }>('Profiler.stop')).profile;
	}

	close(): void {
		this.socket.close();
	}
}
