/**
 * As an AI agent tool, n8n resolves $fromAI() in any parameter from the tool call's arguments, which reach
 * the node as its input item (n8n-core create-node-as-tool, n8n-workflow's $fromAI). The editor's ✨ button
 * is not offered on dropdowns (editor-ui fromAIOverride.utils: 'options' is denied), but an expression
 * typed into one works, as long as the field is not noDataExpression. These runs prove the node takes them.
 */
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const fromAI = (key: string, description: string, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;

it('Chatbot Update: the chatbot locator, dropdowns and a boolean filled by $fromAI', async () => {
	const result = await fx.run(
		{
			resource: 'chatbot',
			operation: 'update',
			chatbotId: { __rl: true, mode: 'id', value: fromAI('chatbot_id', 'ID of the chatbot') },
			updateFields: {
				template: fromAI('template', 'classic, modern or glassmorphism'),
				bubble_position: fromAI('bubble_position', 'bottom-right, bottom-left or bottom-center'),
				auto_open: fromAI('auto_open', 'open the chat at once', 'boolean'),
			},
		},
		{
			items: [
				{
					json: {
						query: {
							chatbot_id: 'cb_acme_support',
							template: 'modern',
							bubble_position: 'bottom-left',
							auto_open: true,
						},
					},
				},
			],
		},
	);
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({
		id: 'cb_acme_support',
		template: 'modern',
		bubble_position: 'bottom-left',
		auto_open: true,
	});
});

it('Agent Create and SIP Detach: the phone number locator and the directions filled by $fromAI', async () => {
	const created = await fx.run(
		{
			resource: 'agent',
			operation: 'create',
			phoneNumber: { __rl: true, mode: 'list', value: fromAI('phone', 'E.164 number') },
			agentName: fromAI('name', 'agent name'),
			task: fromAI('task', 'what the agent does'),
			selectedVoice: fromAI('voice', 'voice name'),
		},
		{ items: [{ json: { phone: '+14155550177', name: 'From AI', task: 'Book', voice: 'june' } }] },
	);
	expect(created.error).toBeUndefined();
	expect(created.items[0].json).toMatchObject({
		agentName: 'From AI',
		phoneNumber: '+14155550177',
		selectedVoice: 'june',
	});

	const detached = await fx.run(
		{
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '+14155550103',
			directions: fromAI('directions', 'inbound and/or outbound, comma-separated'),
		},
		{ items: [{ json: { directions: 'outbound' } }] },
	);
	expect(detached.error).toBeUndefined();
	expect(
		(await fx.requests()).filter((r) => r.method === 'POST').map((r) => [r.path, r.status]),
	).toContainEqual(['/sip/detach2', 200]);
});
