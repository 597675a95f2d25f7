/**
 * The wire test of every operation, from the catalogue (harness/catalogue.ts): its example runs in
 * n8n-core's engine against a fresh sandbox, a recording proxy in between. The sandbox must receive
 * exactly the catalogue's requests (method, path, JSON body or multipart fields and files), each
 * answered with a 2xx; the catalogue's check must hold for the output, and its `holds` for what the
 * sandbox then holds (an operation that changes no data must leave the sandbox as it was).
 */
import busboy from 'busboy';
import type { IncomingHttpHeaders } from 'node:http';

import { startRecorder, type RecordedRequest } from '../../harness/recorder';
import type { SandboxState, SentRequest } from '../../harness/catalogue';
import { catalogue, entryName, exampleParameters } from '../../harness/catalogue';
import { SandboxFixture } from '../../harness/sandboxFixture';

async function parseForm(
	headers: IncomingHttpHeaders,
	body: Buffer,
): Promise<Pick<SentRequest, 'form' | 'files'>> {
	const form: Record<string, string> = {};
	const files: NonNullable<SentRequest['files']> = {};
	await new Promise<void>((resolve, reject) => {
		const parser = busboy({ headers });
		parser.on('field', (name, value) => (form[name] = value));
		parser.on('file', (name, stream, info) => {
			let size = 0;
			stream.on('data', (chunk: Buffer) => (size += chunk.length));
			stream.on(
				'end',
				() => (files[name] = { filename: info.filename ?? '', type: info.mimeType, size }),
			);
		});
		parser.on('close', resolve);
		parser.on('error', reject);
		parser.end(body);
	});
	return { form, files };
}

/** A recorded request in the catalogue's terms. */
async function asSent(request: RecordedRequest): Promise<SentRequest> {
	const sent: SentRequest = { method: request.method, url: request.url };
	const type = String(request.headers['content-type'] ?? '');
	if (type.startsWith('multipart/form-data'))
		return { ...sent, ...(await parseForm(request.headers, request.body)) };
	if (request.body.length > 0) sent.json = JSON.parse(request.body.toString('utf8'));
	return sent;
}

/** Object keys sorted, so that two equal requests give the same text. */
const canonical = (value: unknown) =>
	JSON.stringify(value, (_key, inner: unknown) =>
		inner !== null && typeof inner === 'object' && !Array.isArray(inner)
			? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
			: inner,
	);
const inAnyOrder = (requests: SentRequest[]) =>
	[...requests].sort((a, b) => canonical(a).localeCompare(canonical(b)));

describe.each(catalogue.map((entry) => ({ ...entry, name: entryName(entry) })))(
	'$name',
	(entry) => {
		const fx = new SandboxFixture();
		let recorder: Awaited<ReturnType<typeof startRecorder>>;
		beforeEach(async () => {
			await fx.start();
			recorder = await startRecorder(fx.sandbox.baseUrl);
		});
		afterEach(async () => {
			await recorder.close();
			await fx.stop();
		});

		it(`sends ${entry.request ?? 'no request'} as the catalogue says, and its output and the sandbox hold`, async () => {
			const before = await fx.state<SandboxState>();
			const result = await fx.run(exampleParameters(entry), {
				items: entry.example.items,
				credentials: { baseUrl: recorder.url },
			});
			if (entry.request !== null) expect(result.error).toBeUndefined();

			const sent = await Promise.all(recorder.requests.map(asSent));
			if ((entry.example.items?.length ?? 1) > 1)
				expect(inAnyOrder(sent)).toEqual(inAnyOrder(entry.example.sends));
			else expect(sent).toEqual(entry.example.sends);
			const answered = (await fx.requests()).map((request) => request.status);
			expect(answered.filter((status) => status < 200 || status > 299)).toEqual([]);
			expect(answered).toHaveLength(entry.example.sends.length);

			(entry.example.checkInEngine ?? entry.example.check)(result);
			const after = await fx.state<SandboxState>();
			if (entry.example.holds) entry.example.holds(after, result);
			else expect(after).toEqual(before);
		});
	},
);
