/**
 * Every operation against each set of answer shapes the sandbox offers for what the spec does not show
 * (sandbox/shapes.ts): the node must give the same useful items whichever shape the service uses.
 */
import { ANSWER_SHAPES } from '../../sandbox/shapes';
import { PNG, SandboxFixture } from '../../harness/sandboxFixture';
import { chatbotUpdate } from './operationParameters';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

describe.each(ANSWER_SHAPES)('answer shapes "%s"', (shapes) => {
	beforeEach(async () => await fx.shapes(shapes));

	it('Agent Get Many: one item per agent, Limit applies', async () => {
		const all = await fx.run({ resource: 'agent', operation: 'getAll', returnAll: true });
		expect(all.error).toBeUndefined();
		expect(all.items.map((item) => item.json.agentName)).toEqual(
			expect.arrayContaining(['Reception', 'Recall Reminders']),
		);
		const one = await fx.run({
			resource: 'agent',
			operation: 'getAll',
			returnAll: false,
			limit: 1,
		});
		expect(one.items.map((item) => item.json.agentName)).toEqual(['Reception']);
	});

	it('Agent Create: one item from the answer, the agent exists', async () => {
		const agentName = `Shapes ${shapes}`;
		const result = await fx.run({
			resource: 'agent',
			operation: 'create',
			phoneNumber: { __rl: true, mode: 'list', value: '+14155550101' },
			agentName,
			task: 'Answer',
			selectedVoice: 'maya',
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const state = await fx.state<{ agents: Array<{ id: string; agentName: string }> }>();
		const created = state.agents.find((agent) => agent.agentName === agentName)!;
		expect(JSON.stringify(result.items[0].json)).toContain(created.id);
	});

	it('Chatbot Update (shown shape): the chatbot', async () => {
		const result = await fx.run({
			resource: 'chatbot',
			operation: 'update',
			chatbotId: 'cb_acme_support',
			updateFields: { greeting_text: shapes },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.id, item.json.greeting_text])).toEqual([
			['cb_acme_support', shapes],
		]);
	});

	it('Contact Get List Names and Trust Product Get Many (shown shapes): one item per entry, Limit applies', async () => {
		const names = await fx.run({
			resource: 'contact',
			operation: 'getListNames',
			returnAll: false,
			limit: 2,
		});
		expect(names.items.map((item) => item.json)).toEqual([{ name: 'Leads' }, { name: 'Patients' }]);
		const products = await fx.run({
			resource: 'trustProduct',
			operation: 'getAll',
			returnAll: true,
		});
		expect(products.items).toHaveLength(3);
	});

	it('Webhook Set (shown shape): the message', async () => {
		const result = await fx.run({
			resource: 'webhook',
			operation: 'set',
			whenTriggerHolds: 'takeOver',
			webhookUrl: `https://hooks.example.com/${shapes}`,
		});
		expect(result.items.map((item) => item.json)).toEqual([{ message: 'Webhook updated' }]);
	});

	it('SIP Get: one item holding the number', async () => {
		const result = await fx.run({ resource: 'sip', operation: 'get', phoneNumber: '+14155550101' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(JSON.stringify(result.items[0].json)).toContain('+14155550101');
	});

	it('SIP Update and Detach: applied, one item each, whatever body the write is answered with', async () => {
		const updated = await fx.run({
			resource: 'sip',
			operation: 'update',
			phoneNumber: '+14155550102',
			directions: { outbound: { sipEndpoint: `sip:${shapes}.example.com` } },
			options: { maxAttempts: 1 },
		});
		expect(updated.error).toBeUndefined();
		expect(updated.items).toHaveLength(1);
		const afterUpdate = await fx.state<{
			sip: Array<{
				phone_number: string;
				directions: Array<{ type: string; sip_endpoint: string }>;
			}>;
		}>();
		const number = afterUpdate.sip.find((entry) => entry.phone_number === '+14155550102')!;
		expect(number.directions.find((d) => d.type === 'outbound')?.sip_endpoint).toBe(
			`sip:${shapes}.example.com`,
		);
		const detached = await fx.run({
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550102',
			directions: ['outbound'],
			options: { maxAttempts: 1 },
		});
		expect(detached.error).toBeUndefined();
		expect(detached.items).toHaveLength(1);
		const afterDetach = await fx.state<{
			sip: Array<{ phone_number: string; directions: Array<{ type: string }> }>;
		}>();
		const left = afterDetach.sip.find((entry) => entry.phone_number === '+14155550102');
		expect(left?.directions.some((d) => d.type === 'outbound') ?? false).toBe(false);
	});

	it('an error answer names the status and the target', async () => {
		const result = await fx.run(chatbotUpdate('cb_nope', { greeting_text: 'x' }));
		expect(result.error?.message).toMatch(/^Chatbot "cb_nope" was not found \(404\)/);
	});

	it('an image typed application/octet-stream is sent and accepted', async () => {
		const result = await fx.run(
			{
				resource: 'chatbot',
				operation: 'update',
				chatbotId: 'cb_acme_booking',
				updateFields: { chatbotImageProperty: 'data' },
			},
			{
				items: [
					{
						json: {},
						binary: { data: { data: PNG, mimeType: 'application/octet-stream', fileName: 'logo' } },
					},
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.chatbot_image).toMatch(/\.png$/);
	});
});
