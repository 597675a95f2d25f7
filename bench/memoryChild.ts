/**
 * Child-process entry of the memory scenario: a fresh process updates a chatbot with one image of
 * `size` bytes through n8n's engine and prints one JSON line with the process's memory growth.
 *
 * Baseline: after two warm-up updates with a 1 KiB image (modules loaded, code compiled) and after
 * the big file already exists in memory (it stands for the file a previous node read), with a GC.
 * Peak: RSS and heapUsed + external sampled every millisecond during the run, plus the kernel's peak
 * RSS (resourceUsage().maxRSS) when that rose during the run (it catches what sampling misses).
 *
 * `steps` other than 'node' run a bare node instead that does only the first steps of such an upload
 * ('read': getBinaryDataBuffer; 'blob': and wrap it in a Blob in a FormData; 'send': and PATCH it with
 * httpRequestWithAuthentication), to show which step holds which copy of the file.
 */
import './env';
import '../harness/nodeSources';

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import type { AnyNodeType } from '../harness/engine';
import { runNode } from '../harness/engine';
import { BareReference } from './referenceNode';

type Steps = 'node' | 'read' | 'blob' | 'send';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngOf(size: number): Buffer {
	const data = randomBytes(size);
	PNG_SIGNATURE.copy(data);
	return data;
}

function uploadSteps(steps: Steps, baseUrl: string): INodeType {
	const node = new BareReference();
	node.execute = async function (this: IExecuteFunctions) {
		const data = await this.helpers.getBinaryDataBuffer(0, 'data');
		if (steps === 'read') return [[{ json: { size: data.length } }]];
		const form = new FormData();
		form.append(
			'chatbot_image',
			new Blob([data as unknown as Uint8Array<ArrayBuffer>], { type: 'image/png' }),
			'logo.png',
		);
		if (steps === 'blob') return [[{ json: { size: data.length } }]];
		const json = await this.helpers.httpRequestWithAuthentication.call(this, 'voiceAiApi', {
			method: 'PATCH',
			url: `${baseUrl}/chatbot/cb_acme_support`,
			body: form,
			json: true,
		});
		return [[{ json }]];
	};
	return node;
}

async function main(): Promise<void> {
	const {
		baseUrl,
		apiKey,
		size,
		steps = 'node',
	} = JSON.parse(process.argv[2]) as {
		baseUrl: string;
		apiKey: string;
		size: number;
		steps?: Steps;
	};
	const { VoiceAi } = require(
		join(__dirname, '..', 'dist', 'nodes', 'VoiceAi', 'VoiceAi.node.js'),
	) as { VoiceAi: new () => AnyNodeType };
	const nodeType = steps === 'node' ? 'n8n-nodes-voiceai.voiceAi' : 'bench.uploadSteps';
	const update = async (image: Buffer) =>
		await runNode({
			nodeType,
			nodeTypes: { [nodeType]: steps === 'node' ? new VoiceAi() : uploadSteps(steps, baseUrl) },
			parameters:
				steps === 'node'
					? {
							resource: 'chatbot',
							operation: 'update',
							chatbotId: 'cb_acme_support',
							updateFields: { chatbotImageProperty: 'data' },
						}
					: {},
			credentials: { voiceAiApi: { baseUrl, apiKey } },
			items: [
				{
					json: {},
					binary: { data: { data: image, mimeType: 'image/png', fileName: 'logo.png' } },
				},
			],
		});

	for (let warm = 0; warm < 2; warm++) {
		const result = await update(pngOf(1024));
		if (result.error) throw new Error(`warm-up failed: ${result.error.message}`);
	}
	const file = pngOf(size);
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	gc?.();

	const before = process.memoryUsage();
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let peakRss = before.rss;
	let peakHeapExternal = before.heapUsed + before.external;
	const sample = () => {
		const now = process.memoryUsage();
		peakRss = Math.max(peakRss, now.rss);
		peakHeapExternal = Math.max(peakHeapExternal, now.heapUsed + now.external);
	};
	const timer = setInterval(sample, 1);
	const result = await update(file);
	sample();
	clearInterval(timer);
	const maxRssAfter = process.resourceUsage().maxRSS * 1024;
	if (maxRssAfter > maxRssBefore) peakRss = Math.max(peakRss, maxRssAfter);

	process.stdout.write(
		`${JSON.stringify({
			size,
			ok: !result.error,
			error: result.error?.message,
			httpCode: result.error?.httpCode,
			chatbotImage: result.items[0]?.json.chatbot_image ?? null,
			rssGrowth: peakRss - before.rss,
			heapExternalGrowth: peakHeapExternal - (before.heapUsed + before.external),
			maxRssRose: maxRssAfter > maxRssBefore,
		})}\n`,
	);
	process.exit(0);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
