/**
 * The Voice AI Trigger in a real n8n under attack and load:
 * - 200 forged deliveries (no token, wrong token, another workflow's token): all 401, zero executions;
 * - malformed and oversized bodies: refused, n8n keeps serving and a genuine delivery still runs once;
 * - one genuine delivery replayed 50 times at once: one execution;
 * - callers that go away at several points (mid-body, after sending, after n8n started the run, after
 *   the answer): the service's retry of each conversation leaves exactly one run (its own n8n, with
 *   one production run at a time, so that a run can be held stored and unanswered);
 * - refusals are 4xx: nesting past 1,000 levels;
 * - one body rule (a byte-order mark ignored, a JSON string is a string) and `__proto__`/`constructor`
 *   kept as fields of the item;
 * - 1,000 deliveries at 20 in parallel: exactly 1,000 executions and 1,000 distinct rows, beside n8n's
 *   built-in Webhook node receiving the same 1,000 deliveries at the same time (20 in parallel too), so
 *   both see the same load (timings printed for docs/reliability.md, not asserted).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { productionToken } from '../../nodes/VoiceAi/accountOwnership/registration';
import {
	n8nVersion,
	NODE_TYPES,
	pollUntil,
	type SavedWorkflow,
	type WorkflowJson,
} from '../../harness/n8n';
import { startStack, type Stack } from '../../harness/stack';

const TRIGGER = 'Voice AI Trigger';
const WEBHOOK = 'Webhook';
const LOAD = 1_000;
const PARALLEL = 20;
const TABLE = {
	name: 'Hostile deliveries',
	columns: [
		{ name: 'conversation_id', type: 'string' as const },
		{ name: 'receiver', type: 'string' as const },
	],
};

let stack: Stack;
let target: SavedWorkflow;
let other: SavedWorkflow;
let builtIn: SavedWorkflow;
/** A new trigger (version 1.1, n8n leaves bodies other than JSON, text, form and XML to it), alone. */
let inspect: SavedWorkflow;
let inspectUrl: string;
let targetUrl: string;
let targetToken: string;
let otherToken: string;
let builtInUrl: string;
let tableId: string;

/** Receiver → Set (conversation_id, receiver) → insert into the Data Table. */
function workflow(
	name: string,
	receiver: Record<string, unknown>,
	conversationId: string,
	label: string,
): WorkflowJson {
	return {
		name,
		nodes: [
			{ position: [0, 0], ...receiver } as unknown as WorkflowJson['nodes'][number],
			{
				name: 'Keep id',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [240, 0],
				parameters: {
					assignments: {
						assignments: [
							{ id: 'c', name: 'conversation_id', type: 'string', value: conversationId },
							{ id: 'r', name: 'receiver', type: 'string', value: label },
						],
					},
					options: {},
				},
			},
			{
				name: 'Record',
				type: 'n8n-nodes-base.dataTable',
				typeVersion: 1.1,
				position: [480, 0],
				parameters: {
					resource: 'row',
					operation: 'insert',
					dataTableId: { __rl: true, mode: 'name', value: TABLE.name },
					columns: { mappingMode: 'autoMapInputData', value: {}, matchingColumns: [], schema: [] },
					options: {},
				},
			},
		],
		connections: {
			[String(receiver.name)]: { main: [[{ node: 'Keep id', type: 'main', index: 0 }]] },
			'Keep id': { main: [[{ node: 'Record', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

const voiceAiTrigger = (
	parameters: Record<string, unknown> = {},
	typeVersion = 1,
): Record<string, unknown> => ({
	name: TRIGGER,
	type: NODE_TYPES.trigger,
	typeVersion,
	webhookId: randomUUID(),
	parameters: { output: 'variables', options: {}, whenOwnerUnknown: 'listen', ...parameters },
	credentials: { voiceAiApi: { id: 'placeholder', name: 'placeholder' } },
});

function delivery(conversationId: string): string {
	return JSON.stringify({
		event: 'conversation.completed',
		conversation_id: conversationId,
		source: 'account_webhook',
		agent_id: 'agent_acme_reception',
		chatbot_id: null,
		completed_at: new Date().toISOString(),
		variables: { name: 'Load Test', phone: '+14155550100', intent: 'book' },
	});
}

async function post(
	url: string,
	body: string | Buffer,
	contentType = 'application/json',
	method = 'POST',
): Promise<number> {
	const res = await fetch(url, {
		method,
		headers: { 'content-type': contentType },
		body: method === 'GET' ? undefined : body,
	});
	await res.arrayBuffer();
	return res.status;
}

const withToken = (url: string, token: string) => `${url}?token=${encodeURIComponent(token)}`;

/** Exact number of saved executions of a workflow (n8n's list answers with a count). */
async function executionCount(workflowId: string, status?: string): Promise<number> {
	const filter = encodeURIComponent(
		JSON.stringify(status ? { workflowId, status: [status] } : { workflowId }),
	);
	const page = await stack.api.request<{ count: number }>(
		'GET',
		`/rest/executions?filter=${filter}&limit=1`,
	);
	return page.count;
}

/** Every row of the Data Table (n8n answers at most 250 rows per page). */
async function allRows(): Promise<Array<{ conversation_id: string; receiver: string }>> {
	const project = await stack.api.personalProjectId();
	const rows: Array<{ conversation_id: string; receiver: string }> = [];
	for (;;) {
		const page = await stack.api.request<{
			count: number;
			data: Array<{ conversation_id: string; receiver: string }>;
		}>('GET', `/rest/projects/${project}/data-tables/${tableId}/rows?take=250&skip=${rows.length}`);
		rows.push(...page.data);
		if (page.data.length === 0 || rows.length >= page.count) return rows;
	}
}

async function healthy(): Promise<boolean> {
	const res = await fetch(`${stack.n8n.baseUrl}/healthz`);
	await res.arrayBuffer();
	return res.ok;
}

/** Status and JSON answer of one request; no content type header at all when `contentType` is empty. */
async function answer(
	url: string,
	body: string | Buffer,
	contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown> }> {
	const res = await fetch(url, {
		method: 'POST',
		headers: contentType ? { 'content-type': contentType } : {},
		body,
	});
	const text = await res.text();
	let json: Record<string, unknown> = {};
	try {
		json = JSON.parse(text) as Record<string, unknown>;
	} catch {
		json = { text };
	}
	return { status: res.status, json };
}

const messageOf = (json: Record<string, unknown>) =>
	(json.error as { message?: string } | undefined)?.message;

/** Where a caller closes its connection: ms after the whole request was sent, or at a named point. */
type ClosePoint = 'mid-body' | number | 'after the answer';

/** One request written by hand on its own connection, so that the caller can leave at any point. */
async function openAndSend(
	url: string,
	body: string,
	whole = true,
): Promise<{ socket: Socket; answered: () => boolean; answer: Promise<void> }> {
	const { hostname, port, pathname, search } = new URL(url);
	const bytes = Buffer.from(body);
	const head = Buffer.from(
		`POST ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
			`Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`,
	);
	const socket = connect(Number(port), hostname);
	socket.on('error', () => undefined);
	await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
	let answered = false;
	const answer = new Promise<void>((resolve) =>
		socket.once('data', () => {
			answered = true;
			resolve();
		}),
	);
	const sent = whole ? bytes : bytes.subarray(0, bytes.length >> 1);
	await new Promise<void>((resolve) => socket.write(Buffer.concat([head, sent]), () => resolve()));
	return { socket, answered: () => answered, answer };
}

/** Sends one delivery, then closes its connection at `point`. */
async function sendAndClose(url: string, body: string, point: ClosePoint): Promise<void> {
	const { socket, answer } = await openAndSend(url, body, point !== 'mid-body');
	if (point === 'after the answer') await answer;
	// n8n is waiting for the rest of the body when the caller goes.
	else if (point === 'mid-body') await sleep(50);
	else if (point > 0) await sleep(point);
	socket.destroy();
}

/** An HTTP server whose answers wait for release(): an n8n run calling it holds its execution slot. */
async function holdServer(): Promise<{
	url: string;
	held(): number;
	release(): void;
	holdAgain(): void;
	close(): Promise<void>;
}> {
	const waiting: ServerResponse[] = [];
	let holding = true;
	const server = createServer((req, res) => {
		req.resume();
		if (holding) waiting.push(res);
		else res.end('{}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hold`,
		held: () => waiting.length,
		release: () => {
			holding = false;
			for (const res of waiting.splice(0)) res.end('{}');
		},
		holdAgain: () => {
			holding = true;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** Starts a run of the holder workflow and waits until it holds the only production slot. */
async function takeTheSlot(hold: Awaited<ReturnType<typeof holdServer>>, holderUrl: string) {
	hold.holdAgain();
	expect(await post(holderUrl, '{}')).toBe(200);
	await pollUntil(async () => hold.held() === 1 || undefined, {
		what: 'the holder to hold the slot',
	});
}

/** How many runs each conversation got in a workflow whose only node is the trigger. */
async function runsPerConversation(workflowId: string, ids: string[]): Promise<number[]> {
	const counts = new Map<string, number>();
	for (const { id } of await stack.api.listExecutions(workflowId)) {
		const [json] = (await stack.api.getExecution(id)).outputs[TRIGGER] ?? [];
		const conversationId = (json?._voiceAi as { conversationId?: string } | undefined)
			?.conversationId;
		if (conversationId) counts.set(conversationId, (counts.get(conversationId) ?? 0) + 1);
	}
	return ids.map((id) => counts.get(id) ?? 0);
}

/**
 * n8n 2.x stores a delivery's execution, then answers. With one production run at a time
 * (N8N_CONCURRENCY_PRODUCTION_LIMIT=1) and that slot held by another workflow, the execution waits
 * stored ('new') and unanswered: the moment a caller's timeout or a proxy would cut the connection
 * after n8n started the run. n8n 1.x answers first, so there the caller leaves after the answer.
 */
describe('a caller that goes away', () => {
	let hold: Awaited<ReturnType<typeof holdServer>>;
	let holderUrl: string;
	let gone: SavedWorkflow;
	let goneUrl: string;

	beforeAll(async () => {
		hold = await holdServer();
		stack = await startStack({
			n8n: { env: { N8N_CONCURRENCY_PRODUCTION_LIMIT: '1' } },
			// The service's own deliverer gives up on an answer after 2 s, then retries after 1 s.
			sandbox: { deliveryTimeoutMs: 2_000, deliveryRetry: { attempts: 4, baseDelayMs: 1_000 } },
		});
		const path = randomUUID();
		const holder = await stack.api.importWorkflow({
			name: 'Holds the only slot',
			nodes: [
				{
					name: WEBHOOK,
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					position: [0, 0],
					parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
				},
				{
					name: 'Wait for release',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [240, 0],
					parameters: { url: hold.url, options: { timeout: 600_000 } },
				},
			] as unknown as WorkflowJson['nodes'],
			connections: {
				[WEBHOOK]: { main: [[{ node: 'Wait for release', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		});
		gone = await stack.api.importWorkflow(
			{
				name: 'Callers go away',
				nodes: [
					{
						position: [0, 0],
						...voiceAiTrigger({}, 1.1),
					} as unknown as WorkflowJson['nodes'][number],
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			},
			{ voiceAiApi: stack.credential },
		);
		for (const wf of [holder, gone]) await stack.api.activateWorkflow(wf);
		holderUrl = `${stack.n8n.webhookBase.replace(/\/+$/, '')}/webhook/${path}`;
		const base = stack.api.productionWebhookUrl(stack.n8n.webhookBase, gone, TRIGGER);
		goneUrl = withToken(base, productionToken(stack.org.apiKey, base));
		await pollUntil(async () => (await post(base, delivery('conv_probe'))) === 401, {
			what: 'the trigger webhook to be live',
		});
	}, 240_000);

	afterAll(async () => {
		hold?.release();
		await stack?.close();
		await hold?.close();
	});

	test('after n8n started the run, before its answer: the retry is a duplicate and the conversation runs once', async () => {
		const body = delivery(`conv_started_${randomUUID().slice(0, 8)}`);
		const id = (JSON.parse(body) as { conversation_id: string }).conversation_id;
		await takeTheSlot(hold, holderUrl);

		const caller = await openAndSend(goneUrl, body);
		// n8n stored the execution; on 2.x it waits for the slot, unanswered.
		await pollUntil(
			async () => (await stack.api.listExecutions(gone.id)).length === 1 || undefined,
			{
				what: "the delivery's stored execution",
			},
		);
		const answeredBeforeLeaving = caller.answered();
		caller.socket.destroy();
		hold.release();
		await stack.api.waitForExecutions(gone.id, { count: 1 });

		const retry = await answer(goneUrl, body);
		console.log(
			`[hostile] caller left ${answeredBeforeLeaving ? 'after' : 'before'} the answer, after n8n stored the run; the retry answered ${JSON.stringify(retry.json)}`,
		);
		expect({
			status: retry.status,
			started: retry.json.started,
			duplicates: retry.json.duplicates,
		}).toEqual({
			status: 200,
			started: false,
			duplicates: 1,
		});
		await stack.api.waitForExecutions(gone.id, { count: 1 });
		expect(await runsPerConversation(gone.id, [id])).toEqual([1]);
	});

	test("the service's deliverer times out while n8n holds the started run; its retry does not run the conversation again", async () => {
		await takeTheSlot(hold, holderUrl);
		const { conversationId } = await stack.admin.simulateConversation(stack.org.id, {
			agentId: 'agent_acme_reception',
			variables: { name: 'Gone Caller' },
		});
		const deliveryOf = async () =>
			(await stack.admin.deliveries(stack.org.id)).find((d) => d.conversationId === conversationId);
		// Attempt 1 reached n8n, which stored its run and waits for the slot: the deliverer gives up
		// (n8n 2.x; 1.x answers it first).
		await pollUntil(
			async () => ((await deliveryOf())?.responseCodes.length ?? 0) >= 1 || undefined,
			{
				what: "the deliverer's first attempt to time out",
			},
		);
		hold.release();
		const settled = await pollUntil(
			async () => {
				const delivery = await deliveryOf();
				return delivery && delivery.status !== 'pending' ? delivery : undefined;
			},
			{ what: 'the delivery to settle' },
		);
		await pollUntil(
			async () =>
				(await stack.api.listExecutions(gone.id)).every(
					(e) => !['new', 'running', 'waiting'].includes(e.status),
				) || undefined,
			{ what: 'the runs to finish' },
		);
		const [runs] = await runsPerConversation(gone.id, [conversationId]);
		console.log(
			`[hostile] the sandbox's deliverer: attempts ${settled.attempts}, answers ${JSON.stringify(settled.responseCodes)}; runs of the conversation: ${runs}`,
		);
		// n8n 1.x answers before it stores the run, so there the first attempt gets its 200 in time.
		const firstAnswer = n8nVersion().startsWith('1.') ? 200 : null;
		expect({ status: settled.status, first: settled.responseCodes[0], runs }).toEqual({
			status: 'delivered',
			first: firstAnswer,
			runs: 1,
		});
	});

	test('mid-body, right after sending, or after the answer: each conversation runs once when the service retries', async () => {
		const points: ClosePoint[] = ['mid-body', 0, 5, 10, 20, 50, 'after the answer'];
		const sent = points.map((point) => ({
			point,
			id: `conv_gone_${String(point).replace(/ /g, '_')}_${randomUUID().slice(0, 8)}`,
		}));
		const before = (await stack.api.listExecutions(gone.id)).length;
		for (const { point, id } of sent) await sendAndClose(goneUrl, delivery(id), point);
		const retries: Array<Awaited<ReturnType<typeof answer>>> = [];
		for (const { id } of sent) retries.push(await answer(goneUrl, delivery(id)));
		expect(retries.map((retry) => retry.status)).toEqual(points.map(() => 200));
		await pollUntil(
			async () => {
				const all = await stack.api.listExecutions(gone.id);
				const done = all.every((e) => !['new', 'running', 'waiting'].includes(e.status));
				return done && all.length >= before + points.length ? all : undefined;
			},
			{ what: 'the runs of the abandoned deliveries' },
		);
		const runs = await runsPerConversation(
			gone.id,
			sent.map(({ id }) => id),
		);
		console.log(
			`[hostile] closed at ${points.map((point, i) => `${point}: ${runs[i]} run(s), retry ${retries[i].json.started ? 'started' : 'duplicate'}`).join('; ')}`,
		);
		expect(points.map((point, i) => ({ point, runs: runs[i] }))).toEqual(
			points.map((point) => ({ point, runs: 1 })),
		);
	});
});

interface LoadResult {
	statuses: number[];
	seconds: number;
	p50: number;
	p95: number;
	max: number;
}

async function deliverAll(url: string, ids: string[]): Promise<LoadResult> {
	const latencies: number[] = [];
	const statuses: number[] = new Array(ids.length);
	let next = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < ids.length) {
			const index = next++;
			const sent = performance.now();
			statuses[index] = await post(url, delivery(ids[index]));
			latencies.push(performance.now() - sent);
		}
	};
	await Promise.all(Array.from({ length: PARALLEL }, worker));
	const seconds = (performance.now() - started) / 1000;
	latencies.sort((a, b) => a - b);
	const at = (q: number) =>
		Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]);
	return { statuses, seconds, p50: at(0.5), p95: at(0.95), max: at(1) };
}

async function settle(
	workflowId: string,
	expected: number,
): Promise<{ total: number; success: number; seconds: number }> {
	const started = performance.now();
	const success = await pollUntil(
		async () => {
			const done = await executionCount(workflowId, 'success');
			return done >= expected ? done : undefined;
		},
		{
			timeoutMs: 900_000,
			intervalMs: 1_000,
			what: `${expected} successful executions of ${workflowId}`,
		},
	);
	return {
		total: await executionCount(workflowId),
		success,
		seconds: (performance.now() - started) / 1000,
	};
}

describe('under attack and load', () => {
	beforeAll(async () => {
		stack = await startStack();
		tableId = (await stack.api.createDataTable(TABLE.name, TABLE.columns)).id;
		const credentials = { voiceAiApi: stack.credential };
		target = await stack.api.importWorkflow(
			workflow('Target', voiceAiTrigger(), '={{ $json._voiceAi.conversationId }}', 'voiceai'),
			credentials,
		);
		// Both published for the same account: the second takes the account over (the first keeps serving its URL).
		other = await stack.api.importWorkflow(
			workflow(
				'Other',
				voiceAiTrigger({ whenHeld: 'takeOver' }),
				'={{ $json._voiceAi.conversationId }}',
				'other',
			),
			credentials,
		);
		const path = randomUUID();
		builtIn = await stack.api.importWorkflow(
			workflow(
				'Built-in Webhook',
				{
					name: WEBHOOK,
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
				},
				'={{ $json.body.conversation_id }}',
				'webhook',
			),
			credentials,
		);
		inspect = await stack.api.importWorkflow(
			{
				name: 'Inspect',
				nodes: [
					{
						position: [0, 0],
						...voiceAiTrigger({ whenHeld: 'takeOver' }, 1.1),
					} as unknown as WorkflowJson['nodes'][number],
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			},
			credentials,
		);
		// Target first: the others take the account over from it (n8n 2.x publishes in the background).
		await stack.api.activateWorkflow(target);
		targetUrl = stack.api.productionWebhookUrl(stack.n8n.webhookBase, target, TRIGGER);
		await pollUntil(async () => (await post(targetUrl, delivery('conv_probe'))) === 401, {
			what: 'the trigger webhook to be live',
		});
		for (const wf of [other, builtIn, inspect]) await stack.api.activateWorkflow(wf);
		const otherUrl = stack.api.productionWebhookUrl(stack.n8n.webhookBase, other, TRIGGER);
		targetToken = productionToken(stack.org.apiKey, targetUrl);
		otherToken = productionToken(stack.org.apiKey, otherUrl);
		builtInUrl = `${stack.n8n.webhookBase.replace(/\/+$/, '')}/webhook/${path}`;
		const inspectBase = stack.api.productionWebhookUrl(stack.n8n.webhookBase, inspect, TRIGGER);
		inspectUrl = withToken(inspectBase, productionToken(stack.org.apiKey, inspectBase));
		await pollUntil(async () => (await post(targetUrl, delivery('conv_probe'))) === 401, {
			what: 'the trigger webhook to be live',
		});
		await pollUntil(async () => (await post(builtInUrl, '{}')) === 200, {
			what: 'the built-in webhook to be live',
		});
		// The probe above started one execution of the built-in workflow: wait for it so counts start clean.
		await stack.api.waitForExecutions(builtIn.id, { count: 1 });
	}, 240_000);

	afterAll(async () => {
		await stack?.close();
	});

	test('200 forged deliveries are refused with 401 and start no execution', async () => {
		const forged = Array.from({ length: 200 }, (_, index) => {
			const body = delivery(`conv_forged_${index}`);
			if (index % 4 === 0) return { url: targetUrl, body };
			if (index % 4 === 1) return { url: withToken(targetUrl, `forged-${index}`), body };
			if (index % 4 === 2) return { url: withToken(targetUrl, otherToken), body };
			return { url: withToken(targetUrl, targetToken.slice(0, -1)), body }; // one character short
		});
		const statuses: number[] = [];
		for (let start = 0; start < forged.length; start += PARALLEL) {
			statuses.push(
				...(await Promise.all(
					forged.slice(start, start + PARALLEL).map(({ url, body }) => post(url, body)),
				)),
			);
		}
		expect(statuses).toEqual(forged.map(() => 401));
		expect(await executionCount(target.id)).toBe(0);
		expect(await executionCount(other.id)).toBe(0);
	});

	test('malformed and oversized bodies are refused, n8n keeps serving, a genuine delivery then runs once', async () => {
		const url = withToken(targetUrl, targetToken);
		let nested = '{"conversation_id":"conv_deep","variables":';
		for (let depth = 0; depth < 5_000; depth++) nested += '{"a":';
		nested += '1' + '}'.repeat(5_000) + '}';
		// [what, body, content type, method, statuses that count as the expected refusal]
		const trigger400 = [400];
		const cases: Array<[string, string | Buffer, string, string, number[]]> = [
			// n8n's own JSON parser refuses these before the node runs (422 in n8n 2.40.7)
			[
				'truncated JSON',
				'{"event": "conversation.completed", "conversation_id": ',
				'application/json',
				'POST',
				[400, 422],
			],
			['not JSON at all', 'hello world', 'application/json', 'POST', [400, 422]],
			// the trigger's own checks
			// JSON sent as text/plain and form fields are deliveries (test/e2e/ownership.e2e.test.ts); these are not
			['plain text that is not JSON', 'hello world', 'text/plain', 'POST', trigger400],
			['an XML body', '<conversation id="conv_xml"/>', 'application/xml', 'POST', [400, 415]],
			['empty body', '', 'application/json', 'POST', trigger400],
			['empty object', '{}', 'application/json', 'POST', trigger400],
			['empty array', '[]', 'application/json', 'POST', trigger400],
			['a JSON string', '"conversation.completed"', 'application/json', 'POST', trigger400],
			['an array of numbers', '[1, 2, 3]', 'application/json', 'POST', trigger400],
			['null', 'null', 'application/json', 'POST', trigger400],
			// over n8n's N8N_PAYLOAD_SIZE_MAX (16 MiB): n8n stops reading it (500 in n8n 2.40.7, 413 would do too)
			[
				'an oversized body (17 MiB)',
				Buffer.concat([
					Buffer.from('{"conversation_id":"conv_big","variables":{"x":"'),
					Buffer.alloc(17 * 1024 * 1024, 0x61),
					Buffer.from('"}}'),
				]),
				'application/json',
				'POST',
				[413, 500],
			],
			['GET instead of POST', '', 'application/json', 'GET', [404]],
		];
		const attempts: Array<{ what: string; status: number; expected: number[] }> = [];
		for (const [what, body, contentType, method, expected] of cases) {
			attempts.push({ what, status: await post(url, body, contentType, method), expected });
			expect(await healthy()).toBe(true);
		}
		const deepStatus = await post(url, nested);
		console.log(
			`[hostile] malformed bodies → ${attempts.map((a) => `${a.what}: ${a.status}`).join('; ')}; deeply nested JSON (5,000 levels): ${deepStatus}`,
		);
		expect(
			attempts.map(({ what, status, expected }) => ({ what, refused: expected.includes(status) })),
		).toEqual(attempts.map(({ what }) => ({ what, refused: true })));
		expect(await healthy()).toBe(true);
		// A deeply nested body is valid JSON: accepted (one execution) or refused, never a crash.
		expect([200, 400, 413, 422]).toContain(deepStatus);
		const expectedRuns = deepStatus === 200 ? 1 : 0;
		await pollUntil(
			async () => (await executionCount(target.id, 'success')) === expectedRuns || undefined,
			{ what: 'the executions of the malformed phase' },
		);
		const afterMalformed = await executionCount(target.id);
		expect(afterMalformed).toBe(expectedRuns);

		expect(await post(url, delivery('conv_genuine'))).toBe(200);
		await pollUntil(
			async () => (await executionCount(target.id, 'success')) === afterMalformed + 1 || undefined,
			{ what: 'the genuine execution' },
		);
		expect((await allRows()).filter((row) => row.conversation_id === 'conv_genuine')).toHaveLength(
			1,
		);
	});

	test('a genuine delivery replayed 50 times at once runs once', async () => {
		const url = withToken(targetUrl, targetToken);
		const before = await executionCount(target.id);
		const body = delivery('conv_replayed');
		const statuses = await Promise.all(Array.from({ length: 50 }, () => post(url, body)));
		// every copy is answered 2xx (or the service would retry it), only the first one starts a run
		expect(statuses.filter((status) => status !== 200)).toEqual([]);
		await pollUntil(
			async () => (await executionCount(target.id, 'success')) === before + 1 || undefined,
			{ what: "the replayed delivery's execution" },
		);
		expect(await executionCount(target.id)).toBe(before + 1);
		expect((await allRows()).filter((row) => row.conversation_id === 'conv_replayed')).toHaveLength(
			1,
		);
	});

	test("a body over n8n's size limit is refused by its type (415) or its size (413), not with a 500", async () => {
		const before = await executionCount(inspect.id);
		const oversized = Buffer.concat([
			Buffer.from('{"conversation_id":"conv_oversized","variables":{"x":"'),
			Buffer.alloc(17 * 1024 * 1024, 0x61), // over n8n's default N8N_PAYLOAD_SIZE_MAX (16 MiB)
			Buffer.from('"}}'),
		]);
		const cases: Array<[string, number]> = [
			['', 413],
			['application/vnd.voiceai+json', 413],
			['application/octet-stream', 415],
		];
		const answers = [];
		for (const [contentType] of cases) {
			const { status, json } = await answer(inspectUrl, oversized, contentType);
			answers.push({ contentType, status, message: messageOf(json) ?? json });
			expect(await healthy()).toBe(true);
		}
		console.log(`[hostile] 17 MiB bodies → ${JSON.stringify(answers)}`);
		expect(answers).toEqual(
			cases.map(([contentType, status]) => ({
				contentType,
				status,
				message:
					status === 413
						? expect.stringContaining('N8N_PAYLOAD_SIZE_MAX')
						: expect.stringContaining('Content-Type must be'),
			})),
		);
		expect(await executionCount(inspect.id)).toBe(before);
	});

	test('a delivery nested 100,000 levels deep is refused with 400 saying so; 1,000 levels run and the execution opens', async () => {
		const before = await executionCount(inspect.id);
		const nested = (id: string, depth: number) =>
			`{"conversation_id":"${id}","variables":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth)}`;
		const deep = await answer(inspectUrl, nested('conv_deep_100000', 100_000));
		expect({ status: deep.status, message: messageOf(deep.json) }).toEqual({
			status: 400,
			message: expect.stringContaining('more than 1000 levels deep'),
		});
		expect((await answer(inspectUrl, nested('conv_deep_1000', 1_000))).status).toBe(200);
		const executions = await stack.api.waitForExecutions(inspect.id, { count: before + 1 });
		const opened = await stack.api.getExecution(executions[executions.length - 1].id);
		expect({
			status: opened.status,
			conversationId: (opened.outputs[TRIGGER][0]._voiceAi as { conversationId: string })
				.conversationId,
		}).toEqual({ status: 'success', conversationId: 'conv_deep_1000' });
		expect(await executionCount(inspect.id)).toBe(before + 1);
	});

	test('one body rule: a byte-order mark is ignored, a JSON string is a string; __proto__ and constructor stay fields of the item', async () => {
		const before = await executionCount(inspect.id);
		const refused = [
			await answer(inspectUrl, '"hello"'),
			// a delivery sent as a JSON string holding it, not as an object
			await answer(inspectUrl, JSON.stringify(delivery('conv_string_in_json'))),
		].map(({ status, json }) => ({ status, message: messageOf(json) }));
		expect(refused).toEqual([
			{ status: 400, message: expect.stringContaining('Body is a string') },
			{ status: 400, message: expect.stringContaining('Body is a string') },
		]);
		const fields = '"__proto__":{"_voiceAi":"mine"},"constructor":"c","name":"Bo"';
		const accepted = [
			await answer(
				inspectUrl,
				'\uFEFF' + JSON.stringify({ conversation_id: 'conv_bom', variables: { name: 'Ida' } }),
				'text/plain',
			),
			await answer(inspectUrl, `{"conversation_id":"conv_proto_top",${fields}}`),
			await answer(inspectUrl, `{"data":{"conversation_id":"conv_proto_data",${fields}}}`),
			await answer(
				inspectUrl,
				'conversation_id=conv_proto_form&__proto__=x&constructor=c&name=Bo',
				'application/x-www-form-urlencoded',
			),
		];
		expect(accepted.map(({ status, json }) => ({ status, started: json.started }))).toEqual(
			accepted.map(() => ({ status: 200, started: true })),
		);
		const executions = await stack.api.waitForExecutions(inspect.id, {
			count: before + accepted.length,
		});
		const outputs = new Map<string, Record<string, unknown>>();
		for (const { id } of executions.slice(-accepted.length)) {
			const [json] = (await stack.api.getExecution(id)).outputs[TRIGGER];
			outputs.set((json._voiceAi as { conversationId: string }).conversationId, json);
		}
		expect(outputs.get('conv_bom')?.name).toBe('Ida');
		const fieldsOf = (id: string) => {
			const json = outputs.get(id) ?? {};
			return {
				id,
				// own fields, read as such (`json.__proto__` is the prototype, `json.constructor` Object)
				protoField: JSON.stringify(Object.getOwnPropertyDescriptor(json, '__proto__')?.value),
				constructorField: Object.getOwnPropertyDescriptor(json, 'constructor')?.value as unknown,
				name: json.name,
				variablesRepeated: 'variables' in ((json.conversation as object) ?? {}),
			};
		};
		expect(['conv_proto_top', 'conv_proto_data', 'conv_proto_form'].map(fieldsOf)).toEqual([
			{
				id: 'conv_proto_top',
				protoField: '{"_voiceAi":"mine"}',
				constructorField: 'c',
				name: 'Bo',
				variablesRepeated: false,
			},
			{
				id: 'conv_proto_data',
				protoField: '{"_voiceAi":"mine"}',
				constructorField: 'c',
				name: 'Bo',
				variablesRepeated: false,
			},
			{
				id: 'conv_proto_form',
				protoField: '"x"',
				constructorField: 'c',
				name: 'Bo',
				variablesRepeated: false,
			},
		]);
	});

	test(`${LOAD} deliveries at ${PARALLEL} in parallel: exactly ${LOAD} executions, none lost, none doubled, beside the built-in Webhook node`, async () => {
		const before = {
			target: await executionCount(target.id),
			builtIn: await executionCount(builtIn.id),
		};
		const ids = Array.from(
			{ length: LOAD },
			(_, index) => `conv_load_${index}_${randomUUID().slice(0, 8)}`,
		);

		// Both receivers get the same deliveries at the same time, so both see the same machine load.
		const [voiceAi, webhook] = await Promise.all([
			deliverAll(withToken(targetUrl, targetToken), ids),
			deliverAll(builtInUrl, ids),
		]);
		const [voiceAiSettled, webhookSettled] = await Promise.all([
			settle(target.id, before.target + LOAD),
			settle(builtIn.id, before.builtIn + LOAD),
		]);

		const line = (name: string, r: LoadResult, s: { seconds: number }) =>
			`${name}: ${LOAD} deliveries in ${r.seconds.toFixed(1)} s (${Math.round(LOAD / r.seconds)}/s), response p50 ${r.p50} ms, p95 ${r.p95} ms, max ${r.max} ms; all executions saved ${s.seconds.toFixed(1)} s after the last response`;
		console.log(
			`[hostile] ${line('Voice AI Trigger', voiceAi, voiceAiSettled)}\n[hostile] ${line('n8n Webhook node', webhook, webhookSettled)}`,
		);

		expect(voiceAi.statuses.filter((status) => status !== 200)).toEqual([]);
		expect(webhook.statuses.filter((status) => status !== 200)).toEqual([]);
		expect(voiceAiSettled).toMatchObject({
			total: before.target + LOAD,
			success: before.target + LOAD,
		});
		expect(webhookSettled).toMatchObject({
			total: before.builtIn + LOAD,
			success: before.builtIn + LOAD,
		});

		const sent = new Set(ids);
		const rows = (await allRows()).filter((row) => row.conversation_id?.startsWith('conv_load_'));
		for (const receiver of ['voiceai', 'webhook']) {
			const mine = rows
				.filter((row) => row.receiver === receiver)
				.map((row) => row.conversation_id);
			expect(mine).toHaveLength(LOAD);
			expect(new Set(mine)).toEqual(sent);
		}
		expect(await healthy()).toBe(true);
	}, 1_800_000);
});
