/**
 * A field the user added whose expression yields nothing (undefined or null, e.g. a typo in a field name)
 * is refused, naming the field and the item, and nothing is sent; an explicit empty text still clears
 * the field (issue 40).
 */
import type { INodeParameters } from 'n8n-workflow';

import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const chatbotUpdate = (updateFields: INodeParameters) => ({
	resource: 'chatbot',
	operation: 'update',
	chatbotId: 'cb_acme_support',
	updateFields,
	options: { maxAttempts: 1 },
});

describe('Chatbot Update: an added field whose expression yields nothing', () => {
	it.each([
		['undefined', '={{ $json.welcomeMesage }}'],
		['null', '={{ null }}'],
	])('%s is refused naming the field and the item; nothing is sent', async (_, expression) => {
		const result = await fx.run(chatbotUpdate({ welcome_message: expression }), {
			items: [{ json: { welcomeMessage: 'Hello' } }, { json: { welcomeMessage: 'Hi' } }],
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/^Invalid 'Welcome Message' in item 0: /);
		expect(await fx.requests()).toEqual([]);
	});

	it('with Continue On Fail it is an error item, and the other items are sent', async () => {
		const result = await fx.run(chatbotUpdate({ welcome_message: '={{ $json.text }}' }), {
			items: [{ json: { text: 'Hello' } }, { json: {} }],
			continueOnFail: true,
		});
		expect(result.items[0].json.welcome_message).toBe('Hello');
		expect(String(result.items[1].json.error)).toMatch(/^Invalid 'Welcome Message' in item 1/);
		expect((await fx.requests()).map((request) => request.method)).toEqual(['PATCH']);
	});

	it('an explicit empty text still clears the field', async () => {
		const result = await fx.run(chatbotUpdate({ greeting_text: '={{ "" }}' }));
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.greeting_text).toBe('');
	});
});

describe('SIP Update: an added Config ID whose expression yields nothing', () => {
	it('is refused naming the field and the item; nothing is sent', async () => {
		const result = await fx.run({
			resource: 'sip',
			operation: 'update',
			phoneNumber: '+14155550101',
			trunkName: 'acme-main',
			additionalFields: { uuid_config_id: '={{ $json.configId }}' },
			options: { maxAttempts: 1 },
		});
		expect(result.error?.message).toMatch(/^Invalid 'Config ID' in item 0: /);
		expect(await fx.requests()).toEqual([]);
	});
});
