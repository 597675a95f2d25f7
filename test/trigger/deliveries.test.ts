/**
 * Deliveries reaching the trigger over HTTP: a local server in n8n's role
 * (harness/triggerWorkflow.ts) runs the node's webhook() in n8n-core's WebhookContext and records
 * the items it hands to the run.
 * The registered URL (token included) is read back from the sandbox, as the service would use it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import getRawBody from 'raw-body';
import { setTimeout as sleep } from 'timers/promises';

import type { Delivery } from '../../harness/sandboxAdmin';
import { forgetAllAccounts } from '../../nodes/VoiceAi/accountOwnership/organizations';
import {
	forgetUnlessAnswered,
	readRequestDeliveries,
	remember,
} from '../../nodes/VoiceAiTrigger/delivery';
import { TriggerHarness, TriggerWorkflow } from '../../harness/triggerWorkflow';

const ORG = 'org_acme';
const harness = new TriggerHarness({ deliveryRetry: { attempts: 3, baseDelayMs: 20 } });

async function activeTrigger(
	parameters = {},
	typeVersion?: number,
): Promise<{ flow: TriggerWorkflow; url: string }> {
	const flow = harness.workflow({ parameters, typeVersion });
	// Each trigger as if in its own n8n process: one account, one published owner per process.
	forgetAllAccounts();
	await flow.activate();
	return { flow, url: (await harness.admin.accountWebhook(ORG))! };
}

/** Pastes a new key of the same organization into the workflow's credential, as a rotation does. */
async function rotateKey(flow: TriggerWorkflow): Promise<void> {
	const key = await harness.admin.request<{ apiKey: string }>(
		'POST',
		`/__sandbox/orgs/${ORG}/keys`,
		{ name: 'rotated' },
	);
	flow.credential.apiKey = key.apiKey;
}

function executionsOf(flow: TriggerWorkflow) {
	return harness.executions.filter((execution) => execution.flowId === flow.workflowId);
}

async function post(
	url: string,
	body: string | Buffer | undefined,
	contentType = 'application/json',
	headers: Record<string, string> = {},
) {
	const res = await fetch(url, {
		method: 'POST',
		headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
		body,
	});
	const text = await res.text();
	return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

function payload(overrides: Record<string, unknown> = {}) {
	return {
		event: 'conversation.completed',
		conversation_id: `conv_${Math.random().toString(36).slice(2)}`,
		source: 'account_webhook',
		agent_id: 'agent_1',
		chatbot_id: null,
		completed_at: '2025-01-02T03:04:05.000Z',
		variables: { name: 'Ada', phone: '+14155550100', wants_callback: true },
		...overrides,
	};
}

function withToken(url: string, token: string | null): string {
	const parsed = new URL(url);
	if (token === null) parsed.searchParams.delete('token');
	else parsed.searchParams.set('token', token);
	return parsed.toString();
}

async function settled(org: string, conversationId: string, count: number): Promise<Delivery[]> {
	for (;;) {
		const deliveries = (await harness.admin.deliveries(org)).filter(
			(d) => d.conversationId === conversationId,
		);
		if (deliveries.length >= count && deliveries.every((d) => d.status !== 'pending'))
			return deliveries;
		await sleep(20);
	}
}

describe('verification', () => {
	test('a delivery with the registered token starts one run whose trigger output is the variables plus _voiceAi', async () => {
		const { flow, url } = await activeTrigger();
		const body = payload();
		const res = await post(url, JSON.stringify(body), 'application/json', {
			'X-VoiceAI-Delivery': 'dlv_1',
			'X-VoiceAI-Attempt': '2',
		});
		expect(res).toEqual({
			status: 200,
			body: {
				received: true,
				started: true,
				items: 1,
				duplicates: 0,
				filtered: 0,
				unidentified: 0,
			},
		});

		const [execution] = executionsOf(flow);
		expect(execution.mode).toBe('production');
		// The run n8n starts passes these on as the trigger's output (the real-n8n suites run it).
		const output = execution.items;
		expect(output).toHaveLength(1);
		expect(output[0].json).toEqual({
			name: 'Ada',
			phone: '+14155550100',
			wants_callback: true,
			_voiceAi: {
				event: 'conversation.completed',
				conversationId: body.conversation_id,
				source: 'account webhook',
				agentId: 'agent_1',
				chatbotId: null,
				completedAt: '2025-01-02T03:04:05.000Z',
				receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
				deliveryId: 'dlv_1',
				attempt: 2,
			},
			conversation: {
				event: 'conversation.completed',
				conversation_id: body.conversation_id,
				source: 'account_webhook',
				agent_id: 'agent_1',
				chatbot_id: null,
				completed_at: '2025-01-02T03:04:05.000Z',
			},
		});
	});

	test.each([
		['no token', null],
		['a wrong token', 'x'.repeat(43)],
		['an empty token', ''],
	])('%s: 401 and nothing starts', async (_name, token) => {
		const { flow, url } = await activeTrigger();
		const res = await post(withToken(url, token), JSON.stringify(payload()));
		expect(res.status).toBe(401);
		expect(res.body).toEqual({ error: { status: 401, message: 'Missing or wrong token' } });
		expect(executionsOf(flow)).toHaveLength(0);
	});

	test("another workflow's token is refused", async () => {
		const { url: first } = await activeTrigger();
		const { flow: second, url: secondUrl } = await activeTrigger();
		const foreign = withToken(secondUrl, new URL(first).searchParams.get('token'));
		expect((await post(foreign, JSON.stringify(payload()))).status).toBe(401);
		expect(executionsOf(second)).toHaveLength(0);
	});

	test('after a test listen the production URL keeps working, and the test URL took exactly one delivery', async () => {
		const { flow, url } = await activeTrigger();
		await flow.startTestListen();
		const testUrl = (await harness.admin.accountWebhook(ORG))!;
		expect(testUrl).toContain('/webhook-test/');
		// The production token does not open the test listener; a refused delivery does not end the test.
		expect(
			(
				await post(
					withToken(testUrl, new URL(url).searchParams.get('token')),
					JSON.stringify(payload()),
				)
			).status,
		).toBe(401);
		expect(await harness.admin.accountWebhook(ORG)).toBe(testUrl);

		expect((await post(testUrl, JSON.stringify(payload()))).status).toBe(200);
		expect(executionsOf(flow).map((e) => e.mode)).toEqual(['test']);
		// The test ended with that delivery (n8n answers first, then ends the test): production is back.
		while ((await harness.admin.accountWebhook(ORG)) !== url) await sleep(10);
		expect((await post(testUrl, JSON.stringify(payload()))).status).toBe(404);
		expect((await post(url, JSON.stringify(payload()))).status).toBe(200);
		expect(executionsOf(flow).map((e) => e.mode)).toEqual(['test', 'production']);
	});

	test("after an API key rotation, publishing again registers the new key's token, which starts the workflow", async () => {
		const { flow, url } = await activeTrigger();
		await rotateKey(flow);
		await flow.activate('update');
		const registered = (await harness.admin.accountWebhook(ORG))!;
		expect(registered).not.toBe(url);
		expect((await post(registered, JSON.stringify(payload()))).status).toBe(200);
		expect(executionsOf(flow)).toHaveLength(1);
	});
});

describe('after a restart (n8n 2.x does not run the publish step again)', () => {
	test('a test listen is refused until a delivery to the published trigger tells n8n who holds the account', async () => {
		const { flow, url } = await activeTrigger();
		forgetAllAccounts(); // n8n restarted; the account still points at the published workflow
		const draft = harness.workflow({ name: 'Draft', parameters: { whenOwnerUnknown: 'refuse' } });
		await expect(draft.startTestListen()).rejects.toThrow(
			/cannot tell whether a published workflow/,
		);
		expect(await harness.admin.accountWebhook(ORG)).toBe(url);

		expect((await post(url, JSON.stringify(payload()))).status).toBe(200);
		await draft.startTestListen();
		await draft.endTestListen();
		expect(await harness.admin.accountWebhook(ORG)).toBe(url);
		expect(executionsOf(flow)).toHaveLength(1);
	});
});

describe('after a key rotation in the credential and a restart, without publishing again', () => {
	test("the first delivery lists the new key's agents; the next ones list nothing", async () => {
		const { flow, url } = await activeTrigger();
		await rotateKey(flow);
		forgetAllAccounts(); // n8n restarted: the registration still holds the old key's hash
		const agentLists = async () =>
			(
				await harness.admin.request<Array<{ method: string; path: string }>>(
					'GET',
					`/__sandbox/requests?org=${ORG}`,
				)
			).filter((r) => r.method === 'GET' && r.path === '/callback/standardCampaign').length;
		const before = await agentLists();
		for (let i = 0; i < 4; i++)
			expect((await post(url, JSON.stringify(payload()))).status).toBe(200);
		expect((await agentLists()) - before).toBeLessThanOrEqual(1);
		expect(executionsOf(flow)).toHaveLength(4);
	});
});

describe('malformed bodies start nothing', () => {
	test.each([
		[
			'text that is not JSON, sent as JSON (n8n rejects it before the node)',
			'application/json',
			422,
			() => 'not json',
		],
		['plain text', 'text/plain', 400, () => 'hello'],
		['XML, a content type the trigger refuses', 'application/xml', 415, () => '<delivery/>'],
		[
			'more than 1,000 deliveries in one request',
			'application/json',
			413,
			() => JSON.stringify(Array.from({ length: 1001 }, () => payload())),
		],
		['an empty body', 'application/json', 400, () => ''],
		['an empty object', 'application/json', 400, () => '{}'],
		['an empty array', 'application/json', 400, () => '[]'],
		['a JSON string', 'application/json', 400, () => '"conversation"'],
		['an array with a number', 'application/json', 400, () => '[1]'],
	])('%s (as %j) → %i', async (_name, contentType, status, body) => {
		const { flow, url } = await activeTrigger();
		const res = await post(url, body(), contentType);
		expect(res.status).toBe(status);
		expect(executionsOf(flow)).toHaveLength(0);
	});
});

describe('duplicates, filters and shapes', () => {
	test('the same conversation id within the window is answered 200 and dropped', async () => {
		const { flow, url } = await activeTrigger();
		const body = payload();
		expect((await post(url, JSON.stringify(body))).status).toBe(200);
		const again = await post(url, JSON.stringify({ ...body, variables: { name: 'changed' } }));
		expect(again).toEqual({
			status: 200,
			body: { received: true, started: false, duplicates: 1, filtered: 0, unidentified: 0 },
		});
		expect((await post(url, JSON.stringify(payload()))).status).toBe(200);
		expect(executionsOf(flow)).toHaveLength(2);
	});

	test('a delivery n8n could not start (a 500 after the node took it) starts a run when the service sends it again', async () => {
		const { flow, url } = await activeTrigger();
		const body = JSON.stringify(payload());
		harness.failStarts = 1;
		expect((await post(url, body)).status).toBe(500);
		expect(executionsOf(flow)).toHaveLength(0);
		const again = await post(url, body);
		expect(again).toMatchObject({ status: 200, body: { started: true, duplicates: 0 } });
		expect(executionsOf(flow)).toHaveLength(1);
		// Once a copy was answered 2xx, the next one is a duplicate again.
		expect((await post(url, body)).body).toMatchObject({ started: false, duplicates: 1 });
		expect(executionsOf(flow)).toHaveLength(1);
	});

	test('the id field is an option (dotted path), and window 0 turns deduplication off', async () => {
		const { flow, url } = await activeTrigger({ options: { dedupeField: 'variables.call_id' } });
		await post(url, JSON.stringify(payload({ variables: { call_id: 'c1' } })));
		await post(url, JSON.stringify(payload({ variables: { call_id: 'c1' } })));
		await post(url, JSON.stringify(payload({ variables: { call_id: 'c2' } })));
		expect(executionsOf(flow)).toHaveLength(2);

		const off = await activeTrigger({ options: { dedupeWindowMinutes: 0 } });
		const body = JSON.stringify(payload());
		await post(off.url, body);
		await post(off.url, body);
		expect(executionsOf(off.flow)).toHaveLength(2);
	});

	test('answering when the workflow has finished: the answer follows the run, and a repeat (a retry) is not dropped', async () => {
		const { flow, url } = await activeTrigger({ respondWhen: 'lastNode' });
		const body = JSON.stringify(payload());
		const first = await post(url, body);
		expect(first).toEqual({ status: 200, body: {} });
		expect(executionsOf(flow)).toHaveLength(1);
		// The service retrying a run it thinks failed must start it again: the in-memory check is off.
		expect((await post(url, body)).status).toBe(200);
		expect(executionsOf(flow)).toHaveLength(2);
	});

	test('a large delivery (about 2 MB of variables) arrives whole', async () => {
		const { flow, url } = await activeTrigger();
		const variables: Record<string, string> = {};
		for (let i = 0; i < 2000; i++) variables[`field_${i}`] = `${i}:`.padEnd(1000, 'x');
		const res = await post(url, JSON.stringify(payload({ variables })));
		expect(res.status).toBe(200);
		const [execution] = executionsOf(flow);
		const json = execution.items[0].json;
		expect(Object.keys(json)).toHaveLength(2002);
		expect(json.field_1999).toBe(variables.field_1999);
	});

	test('only deliveries of the chosen chatbots or agents start the workflow', async () => {
		const { flow, url } = await activeTrigger({
			options: { chatbotIds: 'cb_acme_support, cb_other', agentIds: 'agent_7' },
		});
		const skipped = await post(
			url,
			JSON.stringify(payload({ chatbot_id: 'cb_acme_booking', agent_id: null })),
		);
		expect(skipped).toEqual({
			status: 200,
			body: { received: true, started: false, duplicates: 0, filtered: 1, unidentified: 0 },
		});
		await post(
			url,
			JSON.stringify(payload({ chatbot_id: 'cb_acme_support', agent_id: null, source: 'chatbot' })),
		);
		await post(url, JSON.stringify(payload({ agent_id: 'agent_7' })));
		expect(executionsOf(flow).map((e) => e.items[0].json._voiceAi)).toEqual([
			expect.objectContaining({ chatbotId: 'cb_acme_support', source: 'chatbot' }),
			expect.objectContaining({ agentId: 'agent_7', source: 'account webhook' }),
		]);
	});

	test('"Raw Delivery" emits the body exactly as sent', async () => {
		const { flow, url } = await activeTrigger({ output: 'raw' });
		const body = payload({ extra: { nested: [1, 2] } });
		await post(url, JSON.stringify(body));
		expect(executionsOf(flow)[0].items).toEqual([{ json: body }]);
	});

	test('"Raw Delivery" keeps an {"event","data"} envelope as sent; the filter and duplicates read inside it', async () => {
		const { flow, url } = await activeTrigger({ output: 'raw', options: { agentIds: 'agent_7' } });
		const { event, ...conversation } = payload({ agent_id: 'agent_7' });
		const enveloped = { event, data: conversation };
		expect((await post(url, JSON.stringify(enveloped))).body).toMatchObject({ started: true });
		expect((await post(url, JSON.stringify(enveloped))).body).toMatchObject({ duplicates: 1 });
		const otherAgent = { data: payload({ agent_id: 'agent_8' }) };
		expect((await post(url, JSON.stringify(otherAgent))).body).toMatchObject({ filtered: 1 });
		expect(executionsOf(flow).map((execution) => execution.items)).toEqual([[{ json: enveloped }]]);
	});

	test('shapes the spec does not show: no variables key, variables as a JSON string, a batch', async () => {
		const { flow, url } = await activeTrigger();
		await post(url, JSON.stringify({ conversation_id: 'flat_1', name: 'Bo', score: 7 }));
		await post(url, JSON.stringify({ conversation_id: 'str_1', variables: '{"city":"Oslo"}' }));
		await post(url, JSON.stringify({ conversation_id: 'odd_1', variables: ['a', 'b'] }));
		await post(
			url,
			JSON.stringify([
				payload({ conversation_id: 'batch_1' }),
				payload({ conversation_id: 'batch_2' }),
			]),
		);
		const items = executionsOf(flow).map((e) => e.items.map((item) => item.json));
		expect(items[0]).toEqual([
			expect.objectContaining({
				name: 'Bo',
				score: 7,
				_voiceAi: expect.objectContaining({ conversationId: 'flat_1', source: null }),
			}),
		]);
		expect(items[1]).toEqual([expect.objectContaining({ city: 'Oslo' })]);
		expect(items[2]).toEqual([expect.objectContaining({ variables: ['a', 'b'] })]);
		expect(
			items[3].map((json) => (json._voiceAi as { conversationId: string }).conversationId),
		).toEqual(['batch_1', 'batch_2']);
	});
});

describe("the sandbox's own deliverer", () => {
	test('a completed agent conversation reaches the workflow once', async () => {
		const { flow } = await activeTrigger();
		const agents = await harness.admin
			.request<{ id: string }[]>('GET', `/__sandbox/orgs/${ORG}/state`)
			.then((state) => (state as unknown as { agents: { id: string }[] }).agents);
		const { conversationId } = await harness.admin.simulateConversation(ORG, {
			agentId: agents[0].id,
			variables: { name: 'Cleo', slot: 'Tue 10:00' },
		});

		const [delivery] = await settled(ORG, conversationId, 1);
		expect(delivery).toMatchObject({
			target: 'account',
			status: 'delivered',
			responseCodes: [200],
		});
		const [execution] = executionsOf(flow);
		expect(execution.items[0].json).toEqual({
			name: 'Cleo',
			slot: 'Tue 10:00',
			_voiceAi: expect.objectContaining({
				conversationId,
				agentId: agents[0].id,
				source: 'account webhook',
				deliveryId: delivery.id,
				attempt: 1,
			}),
			conversation: expect.objectContaining({
				conversation_id: conversationId,
				agent_id: agents[0].id,
			}),
		});
	});

	test('a chatbot conversation delivered to both the chatbot URL and the account URL starts one run', async () => {
		const { flow, url } = await activeTrigger();
		await harness.admin.request(
			'PUT',
			`/__sandbox/orgs/${ORG}/chatbots/cb_acme_support/webhook-url`,
			{
				webhook_url: url,
			},
		);
		try {
			const { conversationId } = await harness.admin.simulateConversation(ORG, {
				chatbotId: 'cb_acme_support',
				variables: { topic: 'billing' },
			});
			const deliveries = await settled(ORG, conversationId, 2);
			expect(deliveries.map((d) => [d.target, d.status, d.responseCodes])).toEqual(
				expect.arrayContaining([
					['chatbot', 'delivered', [200]],
					['account', 'delivered', [200]],
				]),
			);
			expect(executionsOf(flow)).toHaveLength(1);
		} finally {
			await harness.admin.request(
				'PUT',
				`/__sandbox/orgs/${ORG}/chatbots/cb_acme_support/webhook-url`,
				{
					webhook_url: null,
				},
			);
		}
	});

	test('deliveries to a URL without the token are refused (401) on every retry', async () => {
		const { flow, url } = await activeTrigger();
		await harness.admin.request(
			'PUT',
			`/__sandbox/orgs/${ORG}/chatbots/cb_acme_booking/webhook-url`,
			{
				webhook_url: withToken(url, null),
			},
		);
		try {
			const { conversationId } = await harness.admin.simulateConversation(ORG, {
				chatbotId: 'cb_acme_booking',
				variables: { topic: 'x' },
			});
			const deliveries = await settled(ORG, conversationId, 2);
			const chatbot = deliveries.find((d) => d.target === 'chatbot')!;
			expect(chatbot).toMatchObject({ status: 'failed', responseCodes: [401, 401, 401] });
			expect(executionsOf(flow)).toHaveLength(1); // the account delivery, which carries the token
		} finally {
			await harness.admin.request(
				'PUT',
				`/__sandbox/orgs/${ORG}/chatbots/cb_acme_booking/webhook-url`,
				{
					webhook_url: null,
				},
			);
		}
	});
});

describe('every delivered field reaches the workflow', () => {
	test('scenario 3: duration, transcript, recording and metadata are kept beside the variables', async () => {
		const { flow, url } = await activeTrigger();
		const body = {
			conversation_id: 'c1',
			variables: { name: 'Fay' },
			call_duration_sec: 93,
			transcript: 'Agent: Hello…',
			recording_url: 'https://recordings.example.com/c1.mp3',
			metadata: { campaign: 'spring' },
		};
		expect((await post(url, JSON.stringify(body))).status).toBe(200);
		const json = executionsOf(flow)[0].items[0].json;
		expect(json).toMatchObject({
			name: 'Fay',
			_voiceAi: expect.objectContaining({ conversationId: 'c1' }),
			conversation: {
				conversation_id: 'c1',
				call_duration_sec: 93,
				transcript: 'Agent: Hello…',
				recording_url: 'https://recordings.example.com/c1.mp3',
				metadata: { campaign: 'spring' },
			},
		});
	});

	test('a variable named like a key of the item stays visible', async () => {
		const { flow, url } = await activeTrigger();
		await post(
			url,
			JSON.stringify({
				conversation_id: 'c2',
				variables: { _voiceAi: 'mine', conversation: 'also mine', city: 'Oslo' },
			}),
		);
		const json = executionsOf(flow)[0].items[0].json as {
			city: string;
			conversation: { variables: Record<string, string> };
		};
		expect(json.city).toBe('Oslo');
		expect(json.conversation.variables).toEqual({
			_voiceAi: 'mine',
			conversation: 'also mine',
			city: 'Oslo',
		});
	});

	test('{"data":{…}} and {"event":…,"data":{…}} envelopes are unwrapped', async () => {
		const { flow, url } = await activeTrigger();
		await post(
			url,
			JSON.stringify({ data: { conversation_id: 'env_1', variables: { name: 'Gil' } } }),
		);
		await post(
			url,
			JSON.stringify({
				event: 'conversation.completed',
				data: { conversation_id: 'env_2', variables: { name: 'Hal' } },
			}),
		);
		const items = executionsOf(flow).map(
			(e) =>
				e.items[0].json as {
					name: string;
					_voiceAi: { conversationId: string; event: string | null };
				},
		);
		expect(
			items.map((json) => [json.name, json._voiceAi.conversationId, json._voiceAi.event]),
		).toEqual([
			['Gil', 'env_1', null],
			['Hal', 'env_2', 'conversation.completed'],
		]);
	});

	// From version 1.1 n8n reads only JSON, text, form and XML bodies before the node; the node reads the rest.
	test.each([1, 1.1])(
		'version %s: JSON sent as text/plain or without a content type, and form fields, are accepted',
		async (typeVersion) => {
			const { flow, url } = await activeTrigger({}, typeVersion);
			expect(
				(
					await post(
						url,
						JSON.stringify({ conversation_id: 'txt_1', variables: { name: 'Ida' } }),
						'text/plain',
					)
				).status,
			).toBe(200);
			expect(
				(
					await post(
						url,
						JSON.stringify({ conversation_id: 'none_1', variables: { name: 'Jo' } }),
						'',
					)
				).status,
			).toBe(200);
			const form = new URLSearchParams({
				conversation_id: 'form_1',
				variables: '{"name":"Kai"}',
			}).toString();
			expect((await post(url, form, 'application/x-www-form-urlencoded')).status).toBe(200);
			const items = executionsOf(flow).map((e) => e.items[0].json as { name: string });
			expect(items.map((json) => json.name)).toEqual(['Ida', 'Jo', 'Kai']);
		},
	);

	test.each([1, 1.1])(
		'version %s: JSON sent as application/*+json, or as bytes with no content type at all, is accepted',
		async (typeVersion) => {
			const { flow, url } = await activeTrigger({}, typeVersion);
			const vendor = await post(
				url,
				JSON.stringify({ conversation_id: 'vnd_1', variables: { name: 'Lu' } }),
				'application/vnd.voiceai+json',
			);
			expect(vendor).toEqual({
				status: 200,
				body: expect.objectContaining({ started: true, items: 1 }),
			});
			// A string body would get fetch's text/plain; bytes go without any content type.
			const bytes = await post(
				url,
				Buffer.from(JSON.stringify({ conversation_id: 'raw_1', variables: { name: 'Mo' } })),
				'',
			);
			expect(bytes).toEqual({
				status: 200,
				body: expect.objectContaining({ started: true, items: 1 }),
			});
			expect(executionsOf(flow).map((e) => (e.items[0].json as { name: string }).name)).toEqual([
				'Lu',
				'Mo',
			]);
		},
	);
});

describe('deliveries without ids', () => {
	test('without the id field, duplicates are recognised by the X-VoiceAI-Delivery header', async () => {
		const { flow, url } = await activeTrigger();
		const body = JSON.stringify({ variables: { name: 'Lu' } });
		expect(
			(await post(url, body, 'application/json', { 'X-VoiceAI-Delivery': 'dlv_a' })).body,
		).toMatchObject({ started: true });
		expect(
			(await post(url, body, 'application/json', { 'X-VoiceAI-Delivery': 'dlv_a' })).body,
		).toMatchObject({ started: false, duplicates: 1 });
		expect(
			(await post(url, body, 'application/json', { 'X-VoiceAI-Delivery': 'dlv_b' })).body,
		).toMatchObject({ started: true });
		// Without either, nothing identifies it: every copy starts the workflow.
		await post(url, body);
		await post(url, body);
		expect(executionsOf(flow)).toHaveLength(4);
	});

	test('with an agent filter, a delivery naming no agent or chatbot is dropped and counted as unidentified, unless let through', async () => {
		const { flow, url } = await activeTrigger({ options: { agentIds: 'agent_7' } });
		const anonymous = JSON.stringify({ conversation_id: 'anon_1', variables: { name: 'Mo' } });
		expect((await post(url, anonymous)).body).toEqual({
			received: true,
			started: false,
			duplicates: 0,
			filtered: 0,
			unidentified: 1,
		});
		expect(executionsOf(flow)).toHaveLength(0);

		const open = await activeTrigger({
			options: { agentIds: 'agent_7', withoutSourceId: 'start' },
		});
		expect((await post(open.url, anonymous)).body).toMatchObject({
			started: true,
			unidentified: 0,
		});
		expect(
			(await post(open.url, JSON.stringify(payload({ agent_id: 'agent_8' })))).body,
		).toMatchObject({ started: false, filtered: 1 });
	});
});

/** A body nested `depth` levels deep (the body is level 1): `{"conversation_id":…,"variables":{"a":{…1}}}`. */
function nested(conversationId: string, depth: number): string {
	return `{"conversation_id":"${conversationId}","variables":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth)}`;
}

describe('one rule for bodies: JSON decoded once, a byte-order mark ignored, nothing too deep', () => {
	test.each([
		['a JSON string', 'application/json', '"hello"', 'Body is a string, not a JSON object'],
		[
			'a JSON string holding a delivery',
			'application/json',
			JSON.stringify(JSON.stringify(payload())),
			'Body is a string, not a JSON object',
		],
		[
			'a JSON string holding a delivery, as text',
			'text/plain',
			JSON.stringify(JSON.stringify(payload())),
			'Body is a string, not a JSON object',
		],
		['a number', 'application/json', '42', 'Body is a number, not a JSON object'],
	])(
		'%s (as %s) is refused with 400 saying what it is',
		async (_name, contentType, body, message) => {
			const { flow, url } = await activeTrigger();
			const res = await post(url, body, contentType);
			expect({
				status: res.status,
				message: (res.body.error as { message: string })?.message,
			}).toEqual({ status: 400, message: expect.stringContaining(message) as string });
			expect(executionsOf(flow)).toHaveLength(0);
		},
	);

	test.each([1, 1.1])(
		'version %s: JSON starting with a byte-order mark is a delivery as text, without a content type, and as form fields',
		async (typeVersion) => {
			const { flow, url } = await activeTrigger({}, typeVersion);
			const bom = '\uFEFF';
			const text = await post(
				url,
				bom + JSON.stringify({ conversation_id: 'bom_1', variables: { name: 'Ida' } }),
				'text/plain',
			);
			const none = await post(
				url,
				Buffer.from(bom + JSON.stringify({ conversation_id: 'bom_2', variables: { name: 'Jo' } })),
				'',
			);
			const form = await post(
				url,
				bom + new URLSearchParams({ conversation_id: 'bom_3', name: 'Kai' }).toString(),
				'application/x-www-form-urlencoded',
			);
			expect([text.status, none.status, form.status]).toEqual([200, 200, 200]);
			expect(
				executionsOf(flow).map(
					(e) => (e.items[0].json._voiceAi as { conversationId: string }).conversationId,
				),
			).toEqual(['bom_1', 'bom_2', 'bom_3']);
		},
	);

	test('a body nested 1,000 levels deep starts a run; 1,001 or 100,000 levels are refused with 400 saying why', async () => {
		const { flow, url } = await activeTrigger();
		expect((await post(url, nested('deep_ok', 1_000))).status).toBe(200);
		for (const [id, depth] of [
			['deep_1001', 1_001],
			['deep_100000', 100_000],
		] as const) {
			const res = await post(url, nested(id, depth));
			expect({ id, status: res.status, body: res.body }).toEqual({
				id,
				status: 400,
				body: {
					error: {
						status: 400,
						message: expect.stringContaining('more than 1000 levels deep') as string,
					},
				},
			});
		}
		expect(
			executionsOf(flow).map(
				(e) => (e.items[0].json._voiceAi as { conversationId: string }).conversationId,
			),
		).toEqual(['deep_ok']);
	});
});

describe('keys like __proto__ and constructor are data', () => {
	// Written out: in an object literal `__proto__` sets the prototype, and JSON.stringify skips it.
	const fieldsJson = '"__proto__":{"_voiceAi":"mine"},"constructor":"c","name":"Bo"';

	/** The three fields are own fields of the item, as sent, and the variables are not repeated. */
	function expectFields(json: Record<string, unknown>) {
		expect(JSON.stringify(Object.getOwnPropertyDescriptor(json, '__proto__')?.value)).toBe(
			'{"_voiceAi":"mine"}',
		);
		expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(json, 'constructor')?.value).toBe('c');
		expect(json.name).toBe('Bo');
		expect(Object.keys(json.conversation as object)).not.toContain('variables');
	}

	test('at the top of a delivery without a variables object', async () => {
		const { flow, url } = await activeTrigger();
		await post(url, `{"conversation_id":"proto_1",${fieldsJson}}`);
		const [execution] = executionsOf(flow);
		expect(execution.items[0].json._voiceAi).toMatchObject({ conversationId: 'proto_1' });
		expectFields(execution.items[0].json);
	});

	test('inside a {"data": …} envelope', async () => {
		const { flow, url } = await activeTrigger();
		await post(url, `{"data":{"conversation_id":"proto_2",${fieldsJson}}}`);
		expectFields(executionsOf(flow)[0].items[0].json);
	});

	test('as form fields', async () => {
		const { flow, url } = await activeTrigger();
		await post(
			url,
			'conversation_id=proto_3&__proto__=x&constructor=c&name=Bo',
			'application/x-www-form-urlencoded',
		);
		const json = executionsOf(flow)[0].items[0].json;
		expect(Object.getOwnPropertyDescriptor(json, '__proto__')?.value).toBe('x');
		expect(Object.getOwnPropertyDescriptor(json, 'constructor')?.value).toBe('c');
		expect(Object.keys(json.conversation as object)).not.toContain('variables');
	});

	test('a variable named like a key of the item still moves the variables under conversation, and only then', async () => {
		const { flow, url } = await activeTrigger();
		await post(url, `{"conversation_id":"proto_4","variables":{${fieldsJson}}}`);
		await post(url, `{"conversation_id":"proto_5","variables":{"conversation":1,${fieldsJson}}}`);
		const [plain, clash] = executionsOf(flow).map((e) => e.items[0].json);
		expectFields(plain);
		expect(Object.keys((clash.conversation as { variables: object }).variables)).toEqual([
			'conversation',
			'__proto__',
			'constructor',
			'name',
		]);
	});
});

/**
 * One request through a server that takes steps in n8n 2.x's order for a delivery the trigger took:
 * the trigger records the id (webhook()), n8n starts the run, then answers `status`. The caller
 * leaves before the answer or reads it. Returns whether the id is still remembered afterwards.
 */
async function rememberedAfter(status: number, caller: 'leaves' | 'stays'): Promise<boolean> {
	const scope = `socket-test/${randomId()}`;
	const id = 'field:conv_socket';
	let answered!: () => void;
	const answeredNow = new Promise<void>((resolve) => (answered = resolve));
	let recorded!: () => void;
	const recordedNow = new Promise<void>((resolve) => (recorded = resolve));
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		req.resume();
		req.once('end', () => {
			const expiresAt = remember(scope, id, 60_000, Date.now())!;
			forgetUnlessAnswered(res, scope, [[id, expiresAt]]);
			recorded();
			const answer = () => {
				res.statusCode = status;
				res.setHeader('content-type', 'application/json');
				res.end('{}');
				answered();
			};
			// A caller that leaves is gone (its socket closed) before n8n answers.
			if (caller === 'leaves') res.once('close', answer);
			else answer();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	const socket = connect(port, '127.0.0.1');
	socket.on('error', () => undefined);
	const response = new Promise<void>((resolve) => socket.once('data', () => resolve()));
	socket.write('POST /hook HTTP/1.1\r\nHost: n8n\r\nContent-Length: 2\r\n\r\n{}');
	await recordedNow;
	if (caller === 'leaves') socket.destroy();
	else await response;
	await answeredNow;
	socket.destroy();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	// A second copy: undefined means the first one is still remembered (a duplicate).
	return remember(scope, id, 60_000, Date.now()) === undefined;
}

function randomId(): string {
	return Math.random().toString(36).slice(2);
}

describe('a delivery is forgotten only when n8n answers it with an error', () => {
	test.each([
		[200, 'leaves', true],
		[200, 'stays', true],
		[500, 'leaves', false],
		[500, 'stays', false],
		[503, 'leaves', false],
	] as const)(
		'answered %i, the caller %s before the answer: remembered %s',
		async (status, caller, remembered) => {
			expect(await rememberedAfter(status, caller)).toBe(remembered);
		},
	);
});

describe('a body is read only once its content type is known', () => {
	/** A server reading bodies the way n8n does (raw-body with a size limit) for readRequestDeliveries. */
	async function readThroughServer(
		contentType: string,
		body: Buffer,
		limit: number,
	): Promise<{ result: unknown; bytesRead: boolean }> {
		let bytesRead = false;
		let done!: (result: unknown) => void;
		const result = new Promise<unknown>((resolve) => (done = resolve));
		const server = createServer((req, res) => {
			const request = req as IncomingMessage & { rawBody?: Buffer; readRawBody(): Promise<void> };
			request.readRawBody = async () => {
				bytesRead = true;
				request.rawBody = await getRawBody(req, {
					length: req.headers['content-length'],
					limit,
				});
			};
			void readRequestDeliveries(contentType || undefined, request, () => undefined).then(
				(read) => {
					done(read);
					res.statusCode = 'problem' in read ? read.status : 200;
					res.end();
				},
			);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		await fetch(`http://127.0.0.1:${port}/`, {
			method: 'POST',
			headers: contentType ? { 'content-type': contentType } : {},
			body,
		})
			.then(async (res) => await res.arrayBuffer())
			.catch(() => undefined);
		const read = await result;
		await new Promise<void>((resolve) => server.close(() => resolve()));
		return { result: read, bytesRead };
	}

	const big = Buffer.alloc(64 * 1024, 0x61);

	test.each([
		['application/octet-stream', 415, false],
		['application/xml', 415, false],
		['', 413, true],
		['application/vnd.voiceai+json', 413, true],
	])('a body over the limit as %j is refused with %i (read: %s)', async (type, status, read) => {
		const outcome = await readThroughServer(type, big, 1024);
		expect(outcome).toEqual({
			result: { problem: expect.any(String) as string, status },
			bytesRead: read,
		});
	});

	// Only a parse counts: nothing, an empty object or a Buffer from getBodyData() means the bytes are read.
	test.each([
		['nothing', undefined],
		['an empty object', {}],
		['a Buffer', Buffer.from('{}')],
	])('application/*+json with getBodyData() giving %s reads the raw body', async (_, parsed) => {
		const rawBody = Buffer.from('{"conversation_id":"c1","variables":{"a":"1"}}');
		const request = { rawBody, readRawBody: async () => undefined };
		const read = await readRequestDeliveries('application/vnd.voiceai+json', request, () => parsed);
		expect(read).toEqual({ deliveries: [{ conversation_id: 'c1', variables: { a: '1' } }] });
	});

	// As n8n parses form fields (querystring): a repeated key is an array, not its last value.
	test.each([
		['an empty object', {}],
		['a Buffer', Buffer.from('tag=a&tag=b')],
	])('form fields with getBodyData() giving %s keep a repeated key whole', async (_, parsed) => {
		const rawBody = Buffer.from('\ufeffconversation_id=f1&tag=a&tag=b&name=Bo');
		const request = { rawBody, readRawBody: async () => undefined };
		const type = 'application/x-www-form-urlencoded';
		const read = await readRequestDeliveries(type, request, () => parsed);
		expect(read).toEqual({ deliveries: [{ conversation_id: 'f1', tag: ['a', 'b'], name: 'Bo' }] });
	});

	test('a body within the limit is read', async () => {
		const body = Buffer.from(JSON.stringify(payload({ conversation_id: 'read_1' })));
		const outcome = await readThroughServer('', body, 1024);
		expect(outcome.result).toEqual({
			deliveries: [expect.objectContaining({ conversation_id: 'read_1' })],
		});
	});
});
