/**
 * Simulates a completed conversation on a running sandbox and waits for its webhook deliveries:
 * `npm run simulate -- --org org_acme [--agent ID | --chatbot ID] --var name=Ann --var slot=Tuesday
 *  [--json-var score=0.9] [--conversation-id ID] [--url http://127.0.0.1:3001] [--admin-token T]
 *  [--no-wait] [--timeout-ms 60000] [--json]`
 * The admin token comes from --admin-token, VOICEAI_SANDBOX_ADMIN_TOKEN, or the file the sandbox CLI
 * leaves in the temporary folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { request } from 'undici';

import { connectionFile } from './connection';
import type { Delivery } from './types';

function fail(message: string): never {
	process.stderr.write(`${message}\n`);
	process.exit(2);
}

function pairs(
	list: string[] | undefined,
	flag: string,
	parse: (raw: string) => unknown,
): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const item of list ?? []) {
		const at = item.indexOf('=');
		if (at <= 0) fail(`${flag} takes name=value, got "${item}"`);
		const name = item.slice(0, at);
		if (name === '__proto__') fail(`${flag}: "${name}" is not a usable name`);
		out[name] = parse(item.slice(at + 1));
	}
	return out;
}

async function admin<T>(
	baseUrl: string,
	token: string,
	method: 'GET' | 'POST',
	path: string,
	body?: unknown,
): Promise<T> {
	const res = await request(`${baseUrl}${path}`, {
		method,
		headers: { 'x-sandbox-admin': token, ...(body ? { 'content-type': 'application/json' } : {}) },
		body: body ? JSON.stringify(body) : undefined,
	});
	const text = await res.body.text();
	if (res.statusCode >= 300) fail(`sandbox answered ${res.statusCode}: ${text}`);
	return JSON.parse(text) as T;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			url: { type: 'string', default: 'http://127.0.0.1:3001' },
			'admin-token': { type: 'string' },
			org: { type: 'string' },
			agent: { type: 'string' },
			chatbot: { type: 'string' },
			var: { type: 'string', multiple: true },
			'json-var': { type: 'string', multiple: true },
			'conversation-id': { type: 'string' },
			'no-wait': { type: 'boolean' },
			'timeout-ms': { type: 'string', default: '60000' },
			json: { type: 'boolean' },
		},
		strict: true,
	});
	const baseUrl = values.url!.replace(/\/+$/, '');
	const file = connectionFile(baseUrl);
	const token =
		values['admin-token'] ??
		process.env.VOICEAI_SANDBOX_ADMIN_TOKEN ??
		(existsSync(file)
			? (JSON.parse(readFileSync(file, 'utf8')) as { adminToken: string }).adminToken
			: undefined);
	if (!token)
		fail(
			`no admin token: pass --admin-token or start the sandbox with npm run sandbox (looked in ${file})`,
		);
	if (!values.org) fail('--org is required (for example --org org_acme)');
	if (values.agent && values.chatbot) fail('give --agent or --chatbot, not both');

	const variables = {
		...pairs(values.var, '--var', (raw) => raw),
		...pairs(values['json-var'], '--json-var', (raw) => {
			try {
				return JSON.parse(raw);
			} catch {
				return fail(`--json-var value is not JSON: ${raw}`);
			}
		}),
	};
	const started = await admin<{ conversationId: string; deliveries: Delivery[] }>(
		baseUrl,
		token,
		'POST',
		`/__sandbox/orgs/${encodeURIComponent(values.org)}/conversations`,
		{
			...(values.agent ? { agentId: values.agent } : {}),
			...(values.chatbot ? { chatbotId: values.chatbot } : {}),
			...(values['conversation-id'] ? { conversationId: values['conversation-id'] } : {}),
			variables,
		},
	);
	let deliveries = started.deliveries;
	const deadline = Date.now() + Number(values['timeout-ms']);
	while (
		!values['no-wait'] &&
		deliveries.some((d) => d.status === 'pending') &&
		Date.now() < deadline
	) {
		await sleep(250);
		deliveries = await admin<Delivery[]>(
			baseUrl,
			token,
			'GET',
			`/__sandbox/deliveries?conversationId=${encodeURIComponent(started.conversationId)}`,
		);
	}

	if (values.json) {
		process.stdout.write(
			`${JSON.stringify({ conversationId: started.conversationId, deliveries })}\n`,
		);
	} else {
		process.stdout.write(`conversation ${started.conversationId}\n`);
		if (deliveries.length === 0) process.stdout.write('no webhook registered: nothing delivered\n');
		for (const d of deliveries) {
			process.stdout.write(
				`${d.target} ${redactToken(d.url)}: ${d.status} after ${d.attempts} attempt(s), responses ${JSON.stringify(d.responseCodes)}\n`,
			);
		}
	}
	process.exitCode = deliveries.some((d) => d.status === 'failed') ? 1 : 0;
}

main().catch((err) => fail(`simulate failed: ${(err as Error).message}`));

/** The trigger's token in a webhook URL is a secret like the API key: keep it off the terminal. */
function redactToken(url: string): string {
	return url.replace(/([?&]token=)[^&]+/, '$1[redacted]');
}
