/**
 * The trigger's "Only Agent" resource locator: its list (listSearch `searchAgents`, called the way
 * n8n's editor has the CLI call it, in n8n-core's LoadOptionsContext) against the sandbox over HTTP,
 * then the chosen agent filtering real deliveries the sandbox sends.
 */
import { setTimeout as sleep } from 'timers/promises';

import { TriggerHarness, type TriggerWorkflow } from '../../harness/triggerWorkflow';

const ORG = 'org_acme';
const harness = new TriggerHarness();

function triggerFor(apiKey: string, parameters = {}): TriggerWorkflow {
	return harness.workflow({ apiKey, parameters });
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
	for (;;) {
		const value = await read();
		if (done(value)) return value;
		await sleep(20);
	}
}

describe('agent list (listSearch searchAgents)', () => {
	test('lists the organization\'s agents as "name (phone)", valued by id, sorted by name', async () => {
		const flow = triggerFor(harness.sandbox.orgs[0].apiKey);
		expect(await flow.listSearch('searchAgents')).toEqual({
			results: [
				{ name: 'Recall Reminders (+14155550102)', value: 'agent_acme_recall' },
				{ name: 'Reception (+14155550101)', value: 'agent_acme_reception' },
			],
		});
	});

	test('the filter matches the agent name, case-insensitive, and nothing else', async () => {
		const flow = triggerFor(harness.sandbox.orgs[0].apiKey);
		const names = async (filter: string) =>
			(await flow.listSearch('searchAgents', filter)).results.map((r) => r.value);
		expect(await names('rec')).toEqual(['agent_acme_recall', 'agent_acme_reception']);
		expect(await names('REMIND')).toEqual(['agent_acme_recall']);
		expect(await names('  reception ')).toEqual(['agent_acme_reception']);
		expect(await names('4155550101')).toEqual([]);
		expect(await names('agent_acme')).toEqual([]);
		expect(await names('Sales Desk')).toEqual([]); // another organization's agent
	});

	test("another organization's key lists only its own agents", async () => {
		const flow = triggerFor(harness.sandbox.orgs[1].apiKey);
		expect((await flow.listSearch('searchAgents')).results).toEqual([
			{ name: 'Sales Desk (+442071838750)', value: 'agent_globex_sales' },
		]);
	});

	test('an agent created through the API shows up in the next search', async () => {
		const org = await harness.admin.request<{ id: string }>('POST', '/__sandbox/orgs', {
			name: 'List Search Co',
		});
		const { apiKey } = await harness.admin.request<{ apiKey: string }>(
			'POST',
			`/__sandbox/orgs/${org.id}/keys`,
			{},
		);
		const flow = triggerFor(apiKey);
		expect((await flow.listSearch('searchAgents')).results).toEqual([]);
		const created = await fetch(`${harness.sandbox.baseUrl}/callback/standardCampaign`, {
			method: 'POST',
			headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				agentName: 'Night Line',
				phoneNumber: '+14155550177',
				task: 'Take messages',
				selectedVoice: 'june',
			}),
		});
		const agent = (await created.json()) as { id: string };
		expect((await flow.listSearch('searchAgents', 'night')).results).toEqual([
			{ name: 'Night Line (+14155550177)', value: agent.id },
		]);
	});

	test('a refused key fails the list with the explained 401, without the key in it', async () => {
		const key = harness.sandbox.orgs[0].apiKey;
		const revoked = await harness.admin.request<{ id: string; apiKey: string }>(
			'POST',
			`/__sandbox/orgs/${ORG}/keys`,
			{},
		);
		await harness.admin.request('POST', `/__sandbox/keys/${revoked.id}/revoke`);
		const flow = triggerFor(revoked.apiKey);
		const failure = await flow.listSearch('searchAgents').then(
			() => undefined,
			(error: Error & { httpCode?: string }) => error,
		);
		expect(failure).toMatchObject({
			httpCode: '401',
			message: expect.stringContaining('refused the API key'),
		});
		const shown = `${failure?.message} ${(failure as { description?: string }).description}`;
		expect(shown).not.toContain(revoked.apiKey);
		expect(shown).not.toContain(key);
	});
});

describe('the chosen agent filters deliveries', () => {
	/** One conversation per Acme agent, delivered by the sandbox; the runs they started once both are answered. */
	async function deliverFromEachAgent(flow: TriggerWorkflow, label: string) {
		await flow.activate();
		const answeredBefore = harness.responses.length;
		for (const agentId of ['agent_acme_reception', 'agent_acme_recall']) {
			const { conversationId } = await harness.admin.simulateConversation(ORG, {
				agentId,
				variables: { label },
			});
			const [delivery] = await until(
				async () =>
					(await harness.admin.deliveries(ORG)).filter((d) => d.conversationId === conversationId),
				(found) => found.length === 1 && found[0].status !== 'pending',
			);
			expect(delivery).toMatchObject({ status: 'delivered', responseCodes: [200] });
		}
		// The receiver records an answer once the run it started (if any) has finished.
		await until(
			() => harness.responses.length,
			(answered) => answered >= answeredBefore + 2,
		);
		return harness.executions.filter((execution) => execution.flowId === flow.workflowId);
	}

	test('From List: the value picked from the list lets only that agent start the workflow', async () => {
		const flow = triggerFor(harness.sandbox.orgs[0].apiKey);
		const [recall] = (await flow.listSearch('searchAgents', 'recall')).results;
		flow.setParameters({
			options: {
				agentIds: { __rl: true, mode: 'list', value: recall.value, cachedResultName: recall.name },
			},
		});
		const runs = await deliverFromEachAgent(flow, 'from-list');
		expect(runs.map((run) => run.items[0].json._voiceAi)).toEqual([
			expect.objectContaining({ agentId: 'agent_acme_recall' }),
		]);
		await flow.deactivate();
	});

	test('By ID takes one or several comma-separated IDs', async () => {
		const flow = triggerFor(harness.sandbox.orgs[0].apiKey, {
			options: { agentIds: { __rl: true, mode: 'id', value: 'agent_acme_reception, agent_other' } },
		});
		const runs = await deliverFromEachAgent(flow, 'by-id');
		expect(runs.map((run) => run.items[0].json._voiceAi)).toEqual([
			expect.objectContaining({ agentId: 'agent_acme_reception' }),
		]);
		await flow.deactivate();
	});

	test('an ID given by an expression is resolved', async () => {
		const flow = triggerFor(harness.sandbox.orgs[0].apiKey, {
			options: { agentIds: { __rl: true, mode: 'id', value: '={{ "agent_acme_" + "recall" }}' } },
		});
		const runs = await deliverFromEachAgent(flow, 'expression');
		expect(runs.map((run) => run.items[0].json._voiceAi)).toEqual([
			expect.objectContaining({ agentId: 'agent_acme_recall' }),
		]);
		await flow.deactivate();
	});

	test('a plain string saved before the filter was a resource locator still filters', async () => {
		const flow = triggerFor(harness.sandbox.orgs[0].apiKey, {
			options: { agentIds: 'agent_acme_reception' },
		});
		const runs = await deliverFromEachAgent(flow, 'legacy');
		expect(runs.map((run) => run.items[0].json._voiceAi)).toEqual([
			expect.objectContaining({ agentId: 'agent_acme_reception' }),
		]);
		await flow.deactivate();
	});
});
