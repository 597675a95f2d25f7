/**
 * Faults injected by the sandbox (500, 502, 503, 429 with and without Retry-After, timeouts, resets,
 * malformed JSON, an HTML page, a far too large answer) against the Voice AI node running in n8n-core:
 * the documented message, retries only where repeating is safe, error items with Continue On Fail, and
 * every input item answered exactly once (writes counted in the sandbox's state).
 */
import type { INodeParameters } from 'n8n-workflow';

import type { LoggedRequest } from '../../harness/sandboxFixture';
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

/** Short waits and timeouts keep the suite quick; Retry-After cases keep the default cap to show the real wait. */
const FAST = { maxWaitSeconds: 0.05, timeoutSeconds: 1 };
const LIST = '/contacts/list-names';
const AGENTS = '/callback/standardCampaign';
const listNames = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'contact',
	operation: 'getListNames',
	returnAll: true,
	options: { ...FAST, ...options },
});

type Kind =
	| 'status-500'
	| 'status-502'
	| 'status-503'
	| 'rate-limit'
	| 'rate-limit-no-retry-after'
	| 'timeout'
	| 'reset'
	| 'malformed-json'
	| 'html';

/** What the sandbox logs for a faulted request (0: no answer) and the message the node gives when it persists. */
const FAULTS: Record<
	Kind,
	{ logged: number; message: RegExp; httpCode?: string; options?: INodeParameters }
> = {
	'status-500': { logged: 500, message: /^The Voice AI service failed \(500\)/, httpCode: '500' },
	'status-502': { logged: 502, message: /^The Voice AI service failed \(502\)/, httpCode: '502' },
	'status-503': { logged: 503, message: /^The Voice AI service failed \(503\)/, httpCode: '503' },
	'rate-limit': {
		logged: 429,
		message: /^Voice AI rate limit reached \(429\)/,
		httpCode: '429',
		options: { maxWaitSeconds: 60 },
	},
	'rate-limit-no-retry-after': {
		logged: 429,
		message: /^Voice AI rate limit reached \(429\)/,
		httpCode: '429',
	},
	timeout: { logged: 0, message: /^Voice AI did not answer in time/ },
	reset: { logged: 0, message: /^The connection to Voice AI was dropped/ },
	'malformed-json': { logged: 200, message: /^Voice AI answered 200 with a body that is not JSON/ },
	html: { logged: 200, message: /^Voice AI answered 200 with a body that is not JSON/ },
};
const KINDS = Object.keys(FAULTS) as Kind[];

const statuses = (log: LoggedRequest[], path: string, method = 'GET') =>
	log.filter((r) => r.path === path && r.method === method).map((r) => r.status);

async function agentNames(): Promise<string[]> {
	return (await fx.state<{ agents: Array<{ agentName: string }> }>()).agents.map(
		(agent) => agent.agentName,
	);
}

describe('a read meets one fault, is repeated, and succeeds', () => {
	it.each(KINDS)('%s', async (kind) => {
		await fx.fault({ kind, path: LIST, times: 1 });
		const result = await fx.run(listNames(FAULTS[kind].options));
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.name)).toEqual(['Leads', 'Patients', 'Newsletter']);
		expect(statuses(await fx.requests(), LIST)).toEqual([FAULTS[kind].logged, 200]);
	});
});

describe('a read meets the fault on every attempt: the documented message after Max Attempts', () => {
	it.each(KINDS)('%s', async (kind) => {
		await fx.fault({ kind, path: LIST });
		const result = await fx.run(
			listNames({ maxAttempts: 3, ...FAULTS[kind].options, maxWaitSeconds: 0.05 }),
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(FAULTS[kind].message);
		expect(result.error?.message).toMatch(/\(after 3 attempts\)$/);
		if (FAULTS[kind].httpCode) expect(result.error?.httpCode).toBe(FAULTS[kind].httpCode);
		expect(result.error?.description).toBeTruthy();
		expect(statuses(await fx.requests(), LIST)).toEqual([0, 1, 2].map(() => FAULTS[kind].logged));
	});

	it.each(KINDS)('%s with Continue On Fail: one error item per input, paired', async (kind) => {
		await fx.fault({ kind, path: LIST });
		const result = await fx.run(listNames({ maxAttempts: 2, maxWaitSeconds: 0.05 }), {
			continueOnFail: true,
			items: [{ json: {} }, { json: {} }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of result.items) {
			expect(item.json.error).toMatch(FAULTS[kind].message);
			if (FAULTS[kind].httpCode) expect(item.json.httpCode).toBe(FAULTS[kind].httpCode);
		}
		expect(statuses(await fx.requests(), LIST)).toHaveLength(4);
	});
});

describe('Agent Create is never repeated after an answer that may hide a created agent', () => {
	const create = (name: string): INodeParameters => ({
		resource: 'agent',
		operation: 'create',
		phoneNumber: '+14155550170',
		agentName: name,
		task: 'Call back',
		selectedVoice: 'june',
		options: FAST,
	});
	/** Agent Create of "<prefix> <kind>", its first POST answered with the fault `kind`. */
	const createAfterOneFault = async (
		kind: Parameters<typeof fx.fault>[0]['kind'],
		prefix: string,
	) => {
		const name = `${prefix} ${kind}`;
		await fx.fault({ kind, method: 'POST', path: AGENTS, times: 1 });
		return { name, result: await fx.run(create(name)) };
	};

	const NO_ANSWER_OR_FAILURE = KINDS.filter(
		(kind) => !kind.startsWith('rate-limit') && kind !== 'malformed-json' && kind !== 'html',
	);

	it.each(NO_ANSWER_OR_FAILURE)(
		'%s: one request, an error that says to check first',
		async (kind) => {
			const { name, result } = await createAfterOneFault(kind, 'Once');
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.message).toMatch(FAULTS[kind].message);
			expect(result.error?.message).not.toMatch(/after \d+ attempts/);
			expect(result.error?.description).toMatch(
				/may have been created.*not repeated automatically/,
			);
			expect(statuses(await fx.requests(), AGENTS, 'POST')).toEqual([FAULTS[kind].logged]);
			expect((await agentNames()).filter((agentName) => agentName === name)).toEqual([]);
		},
	);

	it.each(['malformed-json', 'html'] as const)(
		'%s with 200: a write answered 2xx succeeded, whatever the body; the item shows it, nothing repeated',
		async (kind) => {
			const { result } = await createAfterOneFault(kind, 'Answered');
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(1);
			expect(result.items[0].json).toMatchObject({
				success: true,
				status: 200,
				body: expect.any(String),
			});
			expect(String(result.items[0].json.body)).toContain(
				kind === 'html' ? 'Service temporarily unavailable' : '"chatbotName": ',
			);
			expect(statuses(await fx.requests(), AGENTS, 'POST')).toEqual([200]);
		},
	);

	it.each(['rate-limit', 'rate-limit-no-retry-after'] as const)(
		'%s: the service did nothing, so it is repeated and creates exactly one agent',
		async (kind) => {
			const { name, result } = await createAfterOneFault(kind, 'Limited');
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.agentName)).toEqual([name]);
			expect(statuses(await fx.requests(), AGENTS, 'POST')).toEqual([429, 201]);
			expect((await agentNames()).filter((agentName) => agentName === name)).toEqual([name]);
		},
	);
});

describe('a batch through mixed faults: every item answered once, nothing created twice', () => {
	it('24 agents, concurrency 4, Continue On Fail: 5xx, resets and 429s along the way', async () => {
		const before = await agentNames();
		const names = Array.from({ length: 24 }, (_, index) => `Batch agent ${index}`);
		await fx.fault({ kind: 'rate-limit', method: 'POST', path: AGENTS, times: 3 });
		await fx.fault({ kind: 'status-500', method: 'POST', path: AGENTS, times: 2 });
		await fx.fault({ kind: 'reset', method: 'POST', path: AGENTS, times: 1 });
		await fx.fault({ kind: 'rate-limit-no-retry-after', method: 'POST', path: AGENTS, times: 2 });
		await fx.fault({ kind: 'status-503', method: 'POST', path: AGENTS, times: 1 });
		const result = await fx.run(
			{
				resource: 'agent',
				operation: 'create',
				phoneNumber: '+14155550171',
				agentName: '={{ $json.name }}',
				task: 'Batch',
				selectedVoice: 'nat',
				options: { ...FAST, concurrency: 4, maxWaitSeconds: 2 },
			},
			{ continueOnFail: true, items: names.map((name) => ({ json: { name } })) },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual(names.map((_, item) => ({ item })));

		const failed = result.items.filter((item) => item.json.error !== undefined);
		const created = result.items.filter((item) => item.json.error === undefined);
		// 2 × 500, 1 reset, 1 × 503 fail their item once each; every 429 is waited out and repeated.
		expect(failed).toHaveLength(4);
		for (const item of failed) expect(item.json.description).toMatch(/not repeated automatically/);
		expect(created.map((item) => item.json.agentName)).toEqual(
			created.map((item) => names[(item.pairedItem as { item: number }).item]),
		);

		const after = (await agentNames()).filter((name) => !before.includes(name));
		expect(after.sort()).toEqual(created.map((item) => String(item.json.agentName)).sort());
		expect(new Set(after).size).toBe(after.length);
		const log = statuses(await fx.requests(), AGENTS, 'POST');
		expect(log.filter((status) => status === 201)).toHaveLength(20);
		expect(log.filter((status) => status === 429)).toHaveLength(5);
		expect(log).toHaveLength(29);
	});

	it('chatbot updates (safe to repeat) through 503s and timeouts all land, each once in the output', async () => {
		await fx.fault({ kind: 'status-503', method: 'PATCH', path: '/chatbot/*', times: 2 });
		await fx.fault({ kind: 'timeout', method: 'PATCH', path: '/chatbot/*', times: 1 });
		const ids = ['cb_acme_support', 'cb_acme_booking', 'cb_acme_support', 'cb_acme_booking'];
		const result = await fx.run(
			{
				resource: 'chatbot',
				operation: 'update',
				chatbotId: '={{ $json.id }}',
				updateFields: { chatbot_title: '={{ "Title " + $itemIndex }}' },
				options: { ...FAST, concurrency: 1 },
			},
			{ items: ids.map((id) => ({ json: { id } })) },
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [item.json.id, item.json.chatbot_title, item.pairedItem]),
		).toEqual(ids.map((id, item) => [id, `Title ${item}`, { item }]));
		const state = await fx.state<{ chatbots: Array<{ id: string; chatbot_title: string }> }>();
		expect(
			Object.fromEntries(state.chatbots.map((chatbot) => [chatbot.id, chatbot.chatbot_title])),
		).toMatchObject({
			cb_acme_support: 'Title 2',
			cb_acme_booking: 'Title 3',
		});
		expect(
			statuses(await fx.requests(), '/chatbot/cb_acme_support', 'PATCH')
				.concat(statuses(await fx.requests(), '/chatbot/cb_acme_booking', 'PATCH'))
				.sort(),
		).toEqual([0, 200, 200, 200, 200, 503, 503].sort());
	});
});

describe('a far too large answer', () => {
	it('is refused with a clear message instead of becoming a 50 MB item, and the next request is served', async () => {
		await fx.fault({ kind: 'huge', path: LIST, times: 1 });
		const result = await fx.run(listNames({ maxAttempts: 1 }), { continueOnFail: true });
		expect(result.items).toHaveLength(1);
		expect(JSON.stringify(result.items[0].json).length).toBeLessThan(10_000);
		expect(result.items[0].json.error).toMatch(
			/^Voice AI answered with 50\.0 MiB, too large for the node \(limit 25 MiB\); the transfer was stopped/,
		);
		// The node closed the connection on reading the declared size; the sandbox logs it once it sees that.
		let log = statuses(await fx.requests(), LIST);
		for (let wait = 0; log.length === 0 && wait < 40; wait++) {
			await new Promise((resolve) => setTimeout(resolve, 25));
			log = statuses(await fx.requests(), LIST);
		}
		expect(log).toEqual([expect.any(Number)]);
		const after = await fx.run(listNames());
		expect(after.items.map((item) => item.json.name)).toEqual(['Leads', 'Patients', 'Newsletter']);
	});

	it('without Continue On Fail it stops the node with a NodeApiError', async () => {
		await fx.fault({ kind: 'huge', path: LIST, times: 1 });
		const result = await fx.run(listNames({ maxAttempts: 1 }));
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(/too large for the node/);
	});
});
