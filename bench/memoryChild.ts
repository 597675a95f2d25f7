/**
 * Child-process entry of the memory scenario: a fresh process updates a chatbot with one image of
 * `size` bytes through n8n's engine and prints one JSON line with the process's memory growth.
 *
 * Baseline: after two warm-up updates with a 1 KiB image (modules loaded, code compiled) and after
 * the big file already exists in memory (it stands for the file a previous node read), with a GC.
 * Peak: RSS and heapUsed + external sampled every millisecond during the run, plus the kernel's peak
 * RSS (resourceUsage().maxRSS) when that rose during the run (it catches what sampling misses).
 */
import './env';
import './nodeSources';

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import type { AnyNodeType } from '../test/engine';
import { runNode } from '../test/engine';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngOf(size: number): Buffer {
	const data = randomBytes(size);
	PNG_SIGNATURE.copy(data);
	return data;
}

async function main(): Promise<void> {
	const { baseUrl, apiKey, size } = JSON.parse(process.argv[2]) as { baseUrl: string; apiKey: string; size: number };
	const { VoiceAi } = require(join(__dirname, '..', 'dist', 'nodes', 'VoiceAi', 'VoiceAi.node.js')) as { VoiceAi: new () => AnyNodeType };
	const ourNode = new VoiceAi();
	const update = async (image: Buffer) =>
		await runNode({
			nodeTypes: { 'n8n-nodes-voiceai.voiceAi': ourNode },
			parameters: { resource: 'chatbot', operation: 'update', chatbotId: 'cb_acme_support', updateFields: { chatbotImageProperty: 'data' } },
			credentials: { voiceAiApi: { baseUrl, apiKey } },
			items: [{ json: {}, binary: { data: { data: image, mimeType: 'image/png', fileName: 'logo.png' } } }],
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
