/**
 * Issue 39, in the engine: URLs that decide where a secret goes are refused when the URL parser had to
 * map their host (the credential's base URL, its test, Webhook Set's Webhook URL); a refusal never shows
 * user info; a value that cannot be encoded is refused by field and item; a long held secret is removed
 * from inside a value of a 2xx answer, a short one only as a whole value.
 */
import { runNode, testCredential } from '../../harness/engine';
import type { Loopback } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { sipUpdateWithLogin } from '../../harness/parameters';
import { SandboxFixture, everything } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
let echo: Loopback;
const ECHO_KEY = 'ct_echoed_canary_0123456789abcdefABCDEF';

beforeAll(async () => {
	await fx.start();
	echo = await startLoopback();
});
afterAll(async () => {
	await echo?.close();
	await fx.stop();
});
beforeEach(async () => {
	await fx.reset();
	echo.requests.length = 0;
});

/** The sandbox's host `127.0.0.1` written in ways the parser maps back to it (`PORT`: the sandbox's). */
const MAPPED_SANDBOX_URLS: Array<[string, string]> = [
	['a percent escape', 'http://127.0.0.%31:PORT'],
	['ideographic full stops (U+3002)', 'http://127\u30020\u30020\u30021:PORT'],
	['fullwidth letters', 'http://\uFF4C\uFF4F\uFF43\uFF41\uFF4C\uFF48\uFF4F\uFF53\uFF54:PORT'],
	['a short IPv4 form', 'http://127.1:PORT'],
];
const onSandboxPort = (text: string) => text.replace('PORT', new URL(fx.sandbox.baseUrl).port);

const ELSEWHERE: Array<[string, string, string]> = [
	[
		'a division slash (U+2215)',
		'http://api.voiceai.example\u2215v1.attacker.test',
		'api.voiceai.xn--examplev1-rg4e.attacker.test',
	],
	[
		'a fraction slash (U+2044)',
		'http://api.voiceai.example\u2044v1.attacker.test',
		'api.voiceai.xn--examplev1-wn0e.attacker.test',
	],
	['a Cyrillic letter', 'https://api.voice\u0430i.example', 'api.xn--voicei-7nf.example'],
	['%2e in the host', 'https://api%2evoiceai.example', 'api.voiceai.example'],
];

describe('a base URL whose host the parser maps', () => {
	it.each(MAPPED_SANDBOX_URLS)(
		'%s: the credential test fails naming the host contacted; nothing reaches the sandbox',
		async (_, typed) => {
			const baseUrl = onSandboxPort(typed);
			const outcome = await testCredential('voiceAiApi', { baseUrl, apiKey: fx.acme.apiKey });
			expect(outcome).toEqual({
				status: 'Error',
				message: expect.stringContaining(`the URL parser contacts ${new URL(baseUrl).host}`),
			});
			expect(await fx.requests()).toEqual([]);
		},
	);

	it.each(MAPPED_SANDBOX_URLS)(
		'%s: the node refuses the credential naming the host contacted; nothing sent',
		async (_, typed) => {
			const baseUrl = onSandboxPort(typed);
			const result = await fx.run(
				{ resource: 'contact', operation: 'getListNames', returnAll: true },
				{ credentials: { baseUrl } },
			);
			expect(result.error?.message).toContain(`the URL parser contacts ${new URL(baseUrl).host}`);
			expect(await fx.requests()).toEqual([]);
		},
	);

	it.each(ELSEWHERE)(
		'%s: refused by the credential test and the node',
		async (_, baseUrl, host) => {
			const outcome = await testCredential('voiceAiApi', { baseUrl, apiKey: fx.acme.apiKey });
			expect(outcome.status).toBe('Error');
			expect(outcome.message).toContain(`the URL parser contacts ${host}`);
			const result = await fx.run(
				{ resource: 'contact', operation: 'getListNames', returnAll: true },
				{ credentials: { baseUrl } },
			);
			expect(result.error?.message).toContain(`the URL parser contacts ${host}`);
		},
	);
});

describe("Webhook Set's Webhook URL", () => {
	const webhookSet = (webhookUrl: string) => ({
		resource: 'webhook',
		operation: 'set',
		webhookUrl,
		whenTriggerHolds: 'takeOver',
	});

	it.each([
		[
			'a division slash (U+2215)',
			'https://crm.example\u2215hook.attacker.test/h?token=tok_f0e1d2c3b4a59687',
		],
		['%2e in the host', 'https://crm%2eexample.com/h'],
		['a Cyrillic letter', 'https://crm.ex\u0430mple.com/h'],
	])(
		'%s: an error naming the field and the item; Continue On Fail gives an error item; nothing sent',
		async (_, webhookUrl) => {
			const result = await fx.run(webhookSet(webhookUrl));
			expect(result.error?.message).toMatch(
				/^Invalid 'Webhook URL' in item 0: .*the URL parser contacts /,
			);
			const kept = await fx.run(webhookSet(webhookUrl), { continueOnFail: true });
			expect(kept.items[0].json.error).toMatch(/^Invalid 'Webhook URL' in item 0: /);
			expect(await fx.requests()).toEqual([]);
		},
	);

	it('user info written without // never shows in the refusal', async () => {
		const result = await fx.run(webhookSet('https:hookuser:hookpass123@hooks example.com/h'), {
			continueOnFail: true,
		});
		const text = everything(result);
		expect(result.items[0].json.error).toMatch(/^Invalid 'Webhook URL' in item 0: /);
		expect(text).not.toContain('hookpass123');
		expect(text).not.toContain('hookuser');
		expect(await fx.requests()).toEqual([]);
	});

	it('a lone surrogate in the token: an error naming field and item; an error item; nothing sent', async () => {
		const parameters = webhookSet('https://crm.example.com/hook?token=abc\uD800def');
		const result = await fx.run(parameters);
		expect(result.error?.message).toMatch(
			/^Invalid 'Webhook URL' in item 0: .*half of a character/,
		);
		const kept = await fx.run(parameters, { continueOnFail: true });
		expect(kept.items[0].json.error).toMatch(/^Invalid 'Webhook URL' in item 0: /);
		expect(await fx.requests()).toEqual([]);
	});
});

describe('a SIP password with a lone surrogate', () => {
	it('an error naming the field and the item; Continue On Fail gives an error item; nothing sent', async () => {
		const parameters = sipUpdateWithLogin('pass\uDC00word');
		const result = await fx.run(parameters);
		expect(result.error?.message).toMatch(
			/^Invalid '[^']*SIP Password' in item 0: .*half of a character/,
		);
		const kept = await fx.run(parameters, { continueOnFail: true });
		expect(kept.items[0].json.error).toMatch(/^Invalid '[^']*SIP Password' in item 0: /);
		expect(await fx.requests()).toEqual([]);
	});
});

describe('a held secret inside a value of a 2xx answer', () => {
	const credentials = () => ({ voiceAiApi: { baseUrl: echo.url, apiKey: ECHO_KEY } });
	const LONG_SIP_PASSWORD = 'Tulip-Harbor-42-Mango';

	it.each([false, true])(
		'a SIP password of 16 or more characters: removed inside a value unless Show SIP Passwords (%s) is on',
		async (showSipPasswords) => {
			echo.handle((_, res) => json(res, 200, { note: `password ${LONG_SIP_PASSWORD} stored` }));
			const result = await runNode({
				parameters: sipUpdateWithLogin(LONG_SIP_PASSWORD, { showSipPasswords }),
				credentials: credentials(),
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toEqual({
				note: `password ${showSipPasswords ? LONG_SIP_PASSWORD : '***'} stored`,
			});
		},
	);

	const LONG_TOKEN = 'tok_0123456789abcdefXYZ';

	it('the key (16 or more characters) is removed wherever it appears; every other byte stays', async () => {
		echo.handle((_, res) =>
			json(res, 200, [`see https://x.example/?key=${ECHO_KEY}&a=1`, `k:${ECHO_KEY}`, 'Leads']),
		);
		const result = await runNode({
			parameters: { resource: 'contact', operation: 'getListNames', returnAll: true },
			credentials: credentials(),
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([
			{ name: 'see https://x.example/?key=***&a=1' },
			{ name: 'k:***' },
			{ name: 'Leads' },
		]);
	});

	it('a long token is removed inside a value, a short password only as a whole value', async () => {
		echo.handle((request, res) => {
			if (request.url === '/callback/standardCampaign') return json(res, 200, []);
			json(res, 200, {
				message: `webhook set to https://crm.example.com/hook?token=${LONG_TOKEN}`,
				short: 'the code is abc',
				whole: 'abc',
			});
		});
		const result = await runNode({
			parameters: {
				resource: 'webhook',
				operation: 'set',
				webhookUrl: `https://crm.example.com/hook?token=${LONG_TOKEN}&key=abc`,
				whenTriggerHolds: 'takeOver',
			},
			credentials: credentials(),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({
			message: 'webhook set to https://crm.example.com/hook?token=***',
			short: 'the code is abc',
			whole: '***',
		});
	});
});
