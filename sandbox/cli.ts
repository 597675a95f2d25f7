/**
 * `npm run sandbox -- [--port 3001] [--host 127.0.0.1] [--seed demo|none] [--json] [--latency-ms N]
 *  [--rate-limit N] [--quiet] [--admin-token T] [--delivery-attempts N] [--delivery-base-delay-ms N]
 *  [--delivery-concurrency N] [--shapes documented|wrapped|minimal]`
 * Delivery policy (ours; the spec does not say whether the service retries): a non-2xx answer, a
 * network error or no answer within 10 s is tried again after 0.5, 1, 2, ... s (base delay doubling),
 * up to --delivery-attempts attempts in all; --delivery-attempts 1 makes a service that never retries.
 * --shapes picks how the answers the spec does not show are shaped (sandbox/shapes.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { startSandbox } from './index';
import { connectionFile } from './connection';
import { ANSWER_SHAPES, isAnswerShapes } from './shapes';

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
	if (value === undefined) return fallback;
	if (!/^\d+$/.test(value)) {
		process.stderr.write(`${flag} must be a whole number\n`);
		process.exit(2);
	}
	return Number(value);
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string' },
			host: { type: 'string' },
			seed: { type: 'string' },
			json: { type: 'boolean' },
			'latency-ms': { type: 'string' },
			'rate-limit': { type: 'string' },
			quiet: { type: 'boolean' },
			'admin-token': { type: 'string' },
			'delivery-attempts': { type: 'string' },
			'delivery-base-delay-ms': { type: 'string' },
			'delivery-concurrency': { type: 'string' },
			shapes: { type: 'string' },
		},
		strict: true,
	});
	const seed = values.seed ?? 'demo';
	if (seed !== 'demo' && seed !== 'none') {
		process.stderr.write('--seed must be demo or none\n');
		process.exit(2);
	}
	const shapes = values.shapes ?? 'documented';
	if (!isAnswerShapes(shapes)) {
		process.stderr.write(`--shapes must be one of ${ANSWER_SHAPES.join(', ')}\n`);
		process.exit(2);
	}
	const quiet = values.quiet === true;
	// With --json, stdout carries exactly the one JSON line; the request log goes to stderr.
	const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
	const sandbox = await startSandbox({
		port: wholeNumber(values.port, '--port', 3001),
		host: values.host ?? '127.0.0.1',
		seed,
		latencyMs: wholeNumber(values['latency-ms'], '--latency-ms', 0),
		rateLimit: wholeNumber(values['rate-limit'], '--rate-limit', 0),
		quiet,
		log,
		adminToken: values['admin-token'],
		shapes,
		deliveryRetry: {
			attempts: wholeNumber(values['delivery-attempts'], '--delivery-attempts', 4),
			baseDelayMs: wholeNumber(values['delivery-base-delay-ms'], '--delivery-base-delay-ms', 500),
		},
		deliveryConcurrency: wholeNumber(values['delivery-concurrency'], '--delivery-concurrency', 64),
	});
	const summary = { baseUrl: sandbox.baseUrl, adminToken: sandbox.adminToken, orgs: sandbox.orgs };
	const file = connectionFile(sandbox.baseUrl);
	writeFileSync(
		file,
		JSON.stringify({ baseUrl: sandbox.baseUrl, adminToken: sandbox.adminToken }),
		{ mode: 0o600 },
	);

	if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
	else if (!quiet) {
		log(`Voice AI sandbox listening on ${sandbox.baseUrl}`);
		log(`admin token: ${sandbox.adminToken} (header X-Sandbox-Admin)`);
		if (shapes !== 'documented')
			log(`answers the spec does not show come in the "${shapes}" shapes`);
		for (const org of sandbox.orgs) log(`org ${org.id} "${org.name}" API key: ${org.apiKey}`);
		log('Ctrl+C stops it.');
	}

	let stopping = false;
	const stop = () => {
		if (stopping) return;
		stopping = true;
		rmSync(file, { force: true });
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((err) => {
	process.stderr.write(`sandbox failed to start: ${(err as Error).message}\n`);
	process.exit(1);
});
