/**
 * Scenario 5, overhead in a real n8n: the comparison of scenario 1 between the Voice AI node and n8n's
 * HTTP Request node, made inside a running n8n 2.40.7 with this package installed as users install it.
 * Here n8n's own credentials helper serves the credential (read from n8n's database and decrypted for
 * every load), which the engine harness of scenario 1 can only imitate.
 *
 * Two published workflows, identical but for the request node: Webhook (answers when the last node is
 * done) → Split Out (one item per entry of the posted array) → the request node reading one SIP number
 * per item. Each round posts the same N entries to both webhooks, in alternating order.
 */
import { randomUUID } from 'node:crypto';

import { NODE_TYPES, pollUntil } from '../../harness/n8n';
import type { CredentialRef, SavedWorkflow, WorkflowJson } from '../../harness/n8n';
import { startStack } from '../../harness/stack';
import type { Check, ScenarioResult } from '../report';
import { fmt, median, pairedRatio } from '../stats';

const NUMBER = '+14155550101';
const PATH = `/sip/${encodeURIComponent(NUMBER)}`;

export interface RealN8nOptions {
	items: number;
	rounds: number;
}

function benchWorkflow(
	name: string,
	path: string,
	requestNode: Record<string, unknown>,
): WorkflowJson {
	return {
		name,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path,
					responseMode: 'lastNode',
					responseData: 'noData',
					options: {},
				},
			},
			{
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} },
			},
			{ name: 'Request', position: [400, 0], ...requestNode },
		],
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Request', type: 'main', index: 0 }]] },
		},
		// Both keep no execution data, so n8n's database work after the run is the same small amount.
		settings: {
			executionOrder: 'v1',
			saveDataSuccessExecution: 'none',
			saveDataErrorExecution: 'all',
			saveManualExecutions: false,
		},
	} as WorkflowJson;
}

export async function realN8n(options: RealN8nOptions): Promise<ScenarioResult> {
	const stack = await startStack();
	try {
		const credentials: Record<string, CredentialRef> = { voiceAiApi: stack.credential };
		const variants = [
			{
				key: 'http',
				label:
					'n8n HTTP Request node 4.5, Predefined Credential Type voiceAiApi, its default (all items at once)',
				node: {
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.5,
					parameters: {
						method: 'GET',
						url: `${stack.sandbox.baseUrl}${PATH}`,
						authentication: 'predefinedCredentialType',
						nodeCredentialType: 'voiceAiApi',
						options: {},
					},
					credentials,
				},
			},
			{
				key: 'ours',
				label: 'Voice AI node, SIP Get, default Concurrency (5)',
				node: {
					type: NODE_TYPES.action,
					typeVersion: 1,
					parameters: { resource: 'sip', operation: 'get', phoneNumber: NUMBER },
					credentials,
				},
			},
		];
		const urls: Record<string, string> = {};
		for (const variant of variants) {
			const path = `bench-${variant.key}-${randomUUID()}`;
			const saved: SavedWorkflow = await stack.api.importWorkflow(
				benchWorkflow(`Bench ${variant.key}`, path, variant.node),
				credentials,
			);
			await stack.api.activateWorkflow(saved);
			urls[variant.key] = `${stack.n8n.webhookBase.replace(/\/+$/, '')}/webhook/${path}`;
		}

		const body = JSON.stringify({
			items: Array.from({ length: options.items }, (_, index) => ({ index })),
		});
		const post = async (key: string): Promise<number> => {
			const started = process.hrtime.bigint();
			const response = await fetch(urls[key], {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			await response.arrayBuffer();
			if (response.status !== 200)
				throw new Error(`real n8n, ${key}: the webhook answered ${response.status}`);
			return Number(process.hrtime.bigint() - started) / 1e6;
		};
		// The webhooks answer 404 for about a second after publishing.
		for (const variant of variants) {
			await pollUntil(
				async () =>
					(
						await fetch(urls[variant.key], {
							method: 'POST',
							headers: { 'content-type': 'application/json' },
							body: '{"items":[{}]}',
						})
					).status === 200,
				{ what: `the ${variant.key} webhook to be live` },
			);
		}

		// Warm-up, then rounds in alternating order; afterwards one more run each with the request log checked.
		for (const variant of variants) await post(variant.key);
		const times: Record<string, number[]> = { http: [], ours: [] };
		for (let round = 0; round < options.rounds; round++) {
			const order = round % 2 === 0 ? variants : [...variants].reverse();
			for (const variant of order) times[variant.key].push(await post(variant.key));
		}
		const seen: Record<string, number> = {};
		for (const variant of variants) {
			await stack.admin.request('DELETE', '/__sandbox/requests');
			await post(variant.key);
			const log = await stack.admin.request<Array<{ path: string; status: number }>>(
				'GET',
				`/__sandbox/requests?org=${stack.org.id}`,
			);
			seen[variant.key] = log.filter((entry) => entry.path === PATH && entry.status === 200).length;
		}

		const ratio = pairedRatio(times.ours, times.http);
		const checks: Check[] = [
			{
				name: 'Real n8n: ours (default Concurrency 5) / HTTP Request node (its default)',
				target: '≤ 1.00x',
				measured: fmt.ratio(ratio),
				pass: ratio <= 1,
			},
			{
				name: 'Real n8n: requests that reached the sandbox, per variant',
				target: `${options.items} each`,
				measured: Object.values(seen).join(', '),
				pass: Object.values(seen).every((count) => count === options.items),
			},
		];
		return {
			title: `5. Overhead in a real n8n: ${options.items} SIP Get requests per webhook call`,
			setup: `A real n8n process (the install of scenario 1) with this package installed as users install it, and the sandbox. Two published workflows: Webhook (answers when the last node is done) → Split Out → the request node, with the same voiceAiApi credential stored in n8n. Each round posts ${options.items} entries to each webhook (alternating order); ${options.rounds} rounds after a warm-up; times are medians, the ratio the median of the per-round ratios.`,
			header: [
				'Variant',
				'Median wall time',
				'Wall per item',
				'Wall vs HTTP Request node',
				'Requests seen by sandbox',
			],
			rows: variants.map((variant) => [
				variant.label,
				fmt.ms(median(times[variant.key])),
				`${(median(times[variant.key]) / options.items).toFixed(3)} ms`,
				fmt.ratio(pairedRatio(times[variant.key], times.http)),
				String(seen[variant.key]),
			]),
			checks,
			notes: [
				"The wall time is the whole webhook call: n8n receiving the post, starting the execution, splitting the items, the requests, and answering. In n8n, every credential load reads the credential from n8n's database and decrypts it; the HTTP Request node loads it for every item, the Voice AI node once per execution.",
			],
		};
	} finally {
		await stack.close();
	}
}
