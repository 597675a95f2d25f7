import { testCredential } from '../../harness/engine';
import { imageItem } from '../../harness/images';
import { agentCreate } from '../../harness/parameters';
import { PNG, SandboxFixture, everything } from '../../harness/sandboxFixture';
import { chatbotUpdate } from './operationParameters';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

const noRetries = { maxAttempts: 1 };

/** Contact Get List Names with the given API key. */
const listNamesWith = (apiKey: string) =>
	fx.run(
		{ resource: 'contact', operation: 'getListNames', returnAll: true },
		{ credentials: { apiKey } },
	);
/** Contact Get List Names, without retries, after a fault on its request. */
const listNamesAfter = async (kind: string) => {
	await fx.fault({ kind, path: '/contacts/list-names', times: 1 });
	return await fx.run({
		resource: 'contact',
		operation: 'getListNames',
		returnAll: true,
		options: noRetries,
	});
};
/** Chatbot Update with the chatbot image `data` of one input item. */
const updateImage = (data: Buffer | string, fileName: string) =>
	fx.run(
		{
			resource: 'chatbot',
			operation: 'update',
			chatbotId: 'cb_acme_support',
			updateFields: { chatbotImageProperty: 'data' },
		},
		{ items: [imageItem(data, fileName)] },
	);

describe('API errors become NodeApiError with an actionable message', () => {
	it('401: an unknown key says to rotate it in the credential, and the key appears nowhere', async () => {
		const apiKey = 'ct_unknown_key_0123456789';
		const result = await listNamesWith(apiKey);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error!.httpCode).toBe('401');
		expect(result.error!.message).toMatch(/refused the API key \(401\)/);
		expect(result.error!.description).toMatch(/paste it into the Voice AI credential/);
		expect(everything(result)).not.toContain(apiKey);
		expect((await fx.requests()).map((r) => r.status)).toEqual([401]);
	});

	it('401: a revoked key fails on the next request', async () => {
		const key = await fx.admin<{ id: string; apiKey: string }>('POST', '/orgs/org_acme/keys', {
			name: 'soon revoked',
		});
		const first = await listNamesWith(key.apiKey);
		expect(first.error).toBeUndefined();
		await fx.admin('POST', `/keys/${key.id}/revoke`);
		const second = await listNamesWith(key.apiKey);
		expect(second.error!.httpCode).toBe('401');
		expect(everything(second)).not.toContain(key.apiKey);
	});

	it('404: a chatbot of another organization reads as not found, naming it', async () => {
		const result = await fx.run(chatbotUpdate('cb_globex_main', { chatbotName: 'Mine now' }));
		expect(result.error!.httpCode).toBe('404');
		expect(result.error!.message).toMatch(/^Chatbot "cb_globex_main" was not found \(404\)/);
		expect(result.error!.description).toMatch(/belongs to another organization/);
	});

	it('404: a number without SIP configuration and an unknown carrier', async () => {
		const sip = await fx.run({ resource: 'sip', operation: 'get', phoneNumber: '+442071838750' });
		expect(sip.error!.message).toMatch(
			/^The SIP configuration of \+442071838750 was not found \(404\)/,
		);
		const carrier = await fx.run({
			resource: 'trustProduct',
			operation: 'getAll',
			carrier: 'telnyx',
			returnAll: true,
		});
		expect(carrier.error!.message).toMatch(/^Carrier "telnyx" was not found \(404\)/);
	});

	it('409: a duplicate agent name (case-insensitive) is a conflict', async () => {
		const result = await fx.run(agentCreate('reception', '+14155550199'));
		expect(result.error!.httpCode).toBe('409');
		expect(result.error!.message).toMatch(/conflict \(409\).*already exists/);
	});

	it("400: the service's own field message is shown", async () => {
		const result = await fx.run(
			agentCreate('Voice test', '+14155550198', { selectedVoice: 'Maya' }),
		);
		expect(result.error!.httpCode).toBe('400');
		expect(result.error!.message).toMatch(/^Voice AI rejected the request: .*selectedVoice/);
		expect(result.error!.description).toMatch(/'selectedVoice'/);
	});

	it('413: an image over the upload limit', async () => {
		const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 + 1)]);
		const result = await updateImage(big, 'huge.png');
		expect(result.error!.httpCode).toBe('413');
		expect(result.error!.description).toMatch(/smaller file/);
	});

	it('415: a file declared as an image whose content is not one', async () => {
		const result = await updateImage('just text', 'fake.png');
		expect(result.error!.httpCode).toBe('415');
	});

	it('429 with retries off: says how to slow down', async () => {
		const result = await listNamesAfter('rate-limit');
		expect(result.error!.httpCode).toBe('429');
		expect(result.error!.description).toMatch(/Lower Concurrency/);
	});

	it.each(['status-500', 'status-502', 'status-503'])('%s with retries off', async (kind) => {
		await fx.fault({ kind, path: '/callback/standardCampaign', times: 1 });
		const result = await fx.run({
			resource: 'agent',
			operation: 'getAll',
			returnAll: true,
			options: noRetries,
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error!.httpCode).toBe(kind.slice(-3));
		expect(result.error!.message).toMatch(/The Voice AI service failed \(5\d\d\)/);
	});

	it('an HTML page instead of JSON on success is reported, not passed through', async () => {
		const result = await listNamesAfter('html');
		expect(result.error!.message).toMatch(/not JSON/);
	});

	it('a dropped connection is a NodeApiError naming the problem', async () => {
		const result = await listNamesAfter('reset');
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error!.message).toMatch(/dropped|failed/);
	});
});

describe("the credential dialog's test", () => {
	it('a revoked key is asked about once: the test names the key as refused instead of sending it again', async () => {
		const key = await fx.admin<{ id: string; apiKey: string }>('POST', '/orgs/org_acme/keys', {
			name: 'revoked before its test',
		});
		await fx.admin('POST', `/keys/${key.id}/revoke`);
		const result = await testCredential('voiceAiApi', {
			baseUrl: fx.sandbox.baseUrl,
			apiKey: key.apiKey,
		});
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The API key was refused: .*revoked/),
		});
		expect((await fx.requests()).map((r) => [r.path, r.status])).toEqual([
			['/contacts/list-names', 401],
		]);
	});
});

describe('continueOnFail and pairedItem', () => {
	it('yields one error item per failed input, in input order, each paired with its input', async () => {
		const result = await fx.run(
			{ resource: 'sip', operation: 'get', phoneNumber: '={{ $json.phone }}' },
			{
				continueOnFail: true,
				items: [
					{ json: { phone: '+14155550101' } },
					{ json: { phone: '+19995550000' } },
					{ json: { phone: 'not a number' } },
					{ json: { phone: '+14155550103' } },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(result.items[0].json.phone_number).toBe('+14155550101');
		expect(result.items[1].json).toMatchObject({
			error: expect.stringMatching(/not found \(404\)/),
			httpCode: '404',
		});
		expect(result.items[2].json.error).toMatch(/Invalid 'Phone Number' in item 2/);
		expect(result.items[3].json.phone_number).toBe('+14155550103');
		// the invalid item was never sent
		expect((await fx.requests()).map((r) => r.path)).toEqual([
			'/sip/%2B14155550101',
			'/sip/%2B19995550000',
			'/sip/%2B14155550103',
			// after the 404, once: does the base URL reach the API? (it does: the 404 is the number's)
			'/contacts/list-names',
		]);
	});

	it('list operations pair every record with the input that asked for it', async () => {
		const result = await fx.run(
			{ resource: 'contact', operation: 'getListNames', returnAll: true },
			{ items: [{ json: {} }, { json: {} }] },
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 0 },
			{ item: 1 },
			{ item: 1 },
			{ item: 1 },
		]);
	});
});

describe('Conversation > Pass Once sends nothing, so it needs no working credential', () => {
	// The engine harness has no processed-data store, so Pass Once ends on its own "store missing"
	// error here (test/node/pass-once.test.ts); with any credential it must end exactly there.
	const passOnceWith = (credentials: Record<string, string>) =>
		fx.run(
			{ resource: 'conversation', operation: 'passOnce' },
			{ credentials, items: [{ json: { conversation_id: 'conv_unusable_1' } }] },
		);

	it.each([
		['a base URL that is not http(s)', { baseUrl: 'ftp://api.example.com' }],
		['a key that does not start with ct_', { apiKey: 'sk_not_a_voice_ai_key' }],
	])('%s: the same result as with a working credential, nothing sent', async (_, credentials) => {
		const working = await passOnceWith({});
		expect(working.error?.message).toMatch(/processed-data store/);
		const unusable = await passOnceWith(credentials);
		expect(unusable.error?.message).toBe(working.error?.message);
		expect(unusable.items).toEqual(working.items);
		expect(await fx.requests()).toEqual([]);
	});

	it('an operation that sends still stops on that credential, even with Continue On Fail', async () => {
		const result = await fx.run(
			{ resource: 'contact', operation: 'getListNames', returnAll: true },
			{ credentials: { baseUrl: 'ftp://api.example.com' }, continueOnFail: true },
		);
		expect(result.error?.message).toMatch(/^The Voice AI credential has no valid base URL/);
		expect(await fx.requests()).toEqual([]);
	});
});

describe('Webhook Set refuses a malformed URL without showing its token', () => {
	// Long enough that a message cutting the URL after 57 characters would show its start.
	const token = 'tok_malformed_url_0123456789abcdef';
	it.each([
		['no Continue On Fail', false],
		['Continue On Fail', true],
	])('%s', async (_, continueOnFail) => {
		const result = await fx.run(
			{
				resource: 'webhook',
				operation: 'set',
				whenTriggerHolds: 'takeOver',
				webhookUrl: `https://hooks example.com/h?token=${token}`,
			},
			{ continueOnFail },
		);
		// What a person sees: the error (message, description, stack) or the error item. The node's own
		// parameters hold the URL as typed: the workflow stores it anyway.
		const { error } = result;
		const shown = continueOnFail
			? JSON.stringify(result.items)
			: JSON.stringify([error?.message, error?.description, error?.stack, error?.context]);
		expect(shown).toMatch(/Webhook URL/);
		expect(shown).toContain('https://hooks example.com/h');
		expect(shown).toContain('(its query not shown) is not an http:// or https:// URL');
		expect(shown).not.toContain(token.slice(0, 8));
		expect(await fx.requests()).toEqual([]);
	});
});
