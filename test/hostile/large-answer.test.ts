/**
 * A service that answers with 400 MB: the node stops the transfer at its 25 MiB limit and refuses the
 * answer, and the memory of the process running the engine stays bounded. The node runs in a child
 * process (harness/largeAnswerChild.ts) so its peak RSS is measured by the kernel for that run alone.
 *
 * Bounds stated here: peak RSS of the child at most 120 MiB above its RSS after a warm-up run, and
 * at most 100 MiB of the 400 MB sent before the connection is closed (socket buffers included).
 * Reading the whole answer first, as the node did before, needs well over 400 MiB.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { Loopback } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const ANSWER_BYTES = 400 * 1000 * 1000;
const PEAK_GROWTH_BOUND_MiB = 120;
const SENT_BOUND_BYTES = 100 * MiB;

let small: Loopback;
let large: Loopback;
let sent = 0;
let finished = false;

/** A JSON array of 1 MiB strings, 400 MB in all, written as fast as the client reads it. */
function streamLargeAnswer(declareLength: boolean): void {
	large.handle((_, res) => {
		const chunk = Buffer.from(`"${'x'.repeat(MiB - 4)}",`);
		res.writeHead(200, {
			'Content-Type': 'application/json',
			...(declareLength ? { 'Content-Length': String(ANSWER_BYTES) } : {}),
		});
		let closed = false;
		res.on('close', () => (closed = true));
		res.write('[');
		sent = 1;
		const pump = (): void => {
			while (!closed && sent + chunk.length + 6 <= ANSWER_BYTES) {
				sent += chunk.length;
				if (!res.write(chunk)) return void res.once('drain', pump);
			}
			if (!closed) {
				finished = true;
				res.end(`"end"]${' '.repeat(ANSWER_BYTES - sent - 6)}`);
			}
		};
		pump();
	});
}

async function runChild(): Promise<{
	beforeMiB: number;
	peakMiB: number;
	ms: number;
	error: { name: string; message: string } | null;
	items: number;
}> {
	const child = join(__dirname, '..', '..', 'harness', 'largeAnswerChild.ts');
	const { stdout } = await run(
		process.execPath,
		['--import', 'tsx', child, JSON.stringify({ baseUrl: large.url, warmUpUrl: small.url })],
		{
			env: process.env,
			timeout: 120_000,
			maxBuffer: MiB,
		},
	);
	return JSON.parse(stdout.trim().split('\n').at(-1)!) as Awaited<ReturnType<typeof runChild>>;
}

beforeAll(async () => {
	small = await startLoopback((_, res) => json(res, 200, ['Leads', 'Patients']));
	large = await startLoopback();
});
afterAll(async () => {
	await small?.close();
	await large?.close();
});
beforeEach(() => {
	sent = 0;
	finished = false;
});

describe('a 400 MB answer', () => {
	it.each([
		{
			how: 'streamed without a length (chunked)',
			declareLength: false,
			message:
				/^Voice AI answered with more than 25 MiB, too large for the node \(limit 25 MiB\); the transfer was stopped/,
		},
		{
			how: 'with its length declared',
			declareLength: true,
			message:
				/^Voice AI answered with 381\.5 MiB, too large for the node \(limit 25 MiB\); the transfer was stopped/,
		},
	])(
		'$how: refused, the transfer stopped, memory bounded',
		async ({ declareLength, message }) => {
			streamLargeAnswer(declareLength);
			const outcome = await runChild();
			console.log(
				`[large answer, ${declareLength ? 'declared' : 'chunked'}] RSS before ${outcome.beforeMiB.toFixed(1)} MiB, peak ${outcome.peakMiB.toFixed(1)} MiB, growth ${(outcome.peakMiB - outcome.beforeMiB).toFixed(1)} MiB, sent ${(sent / MiB).toFixed(1)} MiB of ${(ANSWER_BYTES / MiB).toFixed(1)}, ${outcome.ms} ms`,
			);
			expect(outcome.error?.name).toBe('NodeApiError');
			expect(outcome.error?.message).toMatch(message);
			expect(outcome.items).toBe(0);
			expect(finished).toBe(false);
			expect(sent).toBeLessThan(SENT_BOUND_BYTES);
			expect(outcome.peakMiB - outcome.beforeMiB).toBeLessThan(PEAK_GROWTH_BOUND_MiB);
		},
		150_000,
	);
});
