/**
 * Child process of the large-answer test: runs the Voice AI node (Contact: Get List Names) through
 * n8n-core's engine against `baseUrl` and prints one JSON line with its memory. A fresh process, so
 * the kernel's peak RSS (resourceUsage().maxRSS) is this run's and nothing of the test runner's.
 *
 * argv[2]: JSON { baseUrl, warmUpUrl }. The warm-up run (a small answer) loads and compiles everything
 * first; `before` is the RSS after it, `peak` the process's peak RSS over its whole life.
 */
import './nodeSources';

import { runNode } from './engine';

const MiB = 1024 * 1024;

async function main(): Promise<void> {
	const { baseUrl, warmUpUrl } = JSON.parse(process.argv[2]) as {
		baseUrl: string;
		warmUpUrl: string;
	};
	const parameters = {
		resource: 'contact',
		operation: 'getListNames',
		returnAll: true,
		options: { maxAttempts: 1, timeoutSeconds: 60 },
	};
	const credentials = (url: string) => ({
		voiceAiApi: { baseUrl: url, apiKey: 'ct_large_answer_test_0123456789' },
	});
	const warmUp = await runNode({ parameters, credentials: credentials(warmUpUrl) });
	if (warmUp.error) throw new Error(`warm-up failed: ${warmUp.error.message}`);
	const before = process.memoryUsage().rss;
	const started = Date.now();
	const result = await runNode({ parameters, credentials: credentials(baseUrl) });
	const peak = process.resourceUsage().maxRSS * 1024;
	process.stdout.write(
		`${JSON.stringify({
			beforeMiB: before / MiB,
			peakMiB: peak / MiB,
			ms: Date.now() - started,
			error: result.error ? { name: result.error.name, message: result.error.message } : null,
			items: result.items.length,
		})}\n`,
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
	process.exit(1);
});
