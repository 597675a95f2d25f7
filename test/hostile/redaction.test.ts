/**
 * Redaction by exact value. A service that echoes everything it received back (in a JSON error, a
 * text/plain error, a 5xx) gets canary secrets that look like nothing in particular: a SIP password, a
 * webhook token, the user info of the base URL, the trigger's delivery token. None of them may appear
 * in an error message or description, or anything n8n keeps of the failed run. A 2xx answer is data:
 * its output is the answer as sent, but for a value wholly equal to the key or the token.
 */
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import type { RunNodeResult } from '../../harness/engine';
import { runNode } from '../../harness/engine';
import type { Loopback, SeenRequest } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { sipUpdateWithLogin } from '../../harness/parameters';
import { TriggerWorkflow } from '../../harness/triggerWorkflow';

const API_KEY = 'ct_redaction_canary_key_0123456789';
const SIP_PASSWORD = 'Tulip Harbor/42!';
const WEBHOOK_TOKEN = 'Mango-River-77';
const URL_USER = 'ops';
const URL_PASSWORD = 'Quartz-Lantern-19';

let service: Loopback;

/** Everything the service received, as one text: URL, headers, body. */
const echo = (request: SeenRequest): string =>
	`${request.method} ${request.url} ${request.body.toString('utf8')} ${JSON.stringify(request.headers)}`;

type Answer = 'json-400' | 'text-400' | 'text-500' | 'json-200' | 'text-200';

function answerWith(kind: Answer): void {
	service.handle((request, res) => {
		const said = `rejected what you sent: ${echo(request)}`;
		if (kind === 'json-400')
			return json(res, 400, { error: { status: 400, code: 'invalid', message: said } });
		if (kind === 'json-200') return json(res, 200, { message: 'updated', received: echo(request) });
		res.writeHead(Number(kind.slice(-3)), { 'Content-Type': 'text/plain; charset=utf-8' });
		res.end(kind === 'text-200' ? `updated: ${echo(request)}` : said);
	});
}

beforeAll(async () => {
	service = await startLoopback();
});
afterAll(async () => await service?.close());
beforeEach(() => {
	service.requests.length = 0;
});

const credentials = (baseUrl = service.url): Record<string, ICredentialDataDecryptedObject> => ({
	voiceAiApi: { baseUrl, apiKey: API_KEY },
});

const sipUpdate = sipUpdateWithLogin(SIP_PASSWORD, { options: { maxAttempts: 1 } });
const webhookSet: INodeParameters = {
	resource: 'webhook',
	operation: 'set',
	whenTriggerHolds: 'takeOver',
	webhookUrl: `https://crm.example.com/hook?source=voiceai&token=${WEBHOOK_TOKEN}`,
	options: { maxAttempts: 1 },
};

/**
 * Every text the node produced: its output items, its error with everything n8n keeps of it (stack,
 * context, messages, the response it was built from, the error it wraps) and the node's run data. Not
 * the error's copy of the node's own parameters, which hold what the user typed in (a literal password
 * typed into the node is a stored-workflow matter, see the SIP credential type).
 */
function shown(result: RunNodeResult): string {
	const withoutNode = (key: string, value: unknown) =>
		key === 'node' && value !== null && typeof value === 'object' && 'parameters' in value
			? undefined
			: value;
	const error = result.error
		? JSON.stringify(
				{ ...result.error, message: result.error.message, stack: result.error.stack },
				withoutNode,
			)
		: '';
	return `${JSON.stringify(result.outputs)}\n${error}\n${JSON.stringify(result.run?.data.resultData.runData['Voice AI'] ?? null, withoutNode)}`;
}

function expectNoneOf(text: string, secrets: string[]): void {
	for (const secret of secrets) {
		for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])
			expect({ form, found: text.includes(form) }).toEqual({ form, found: false });
	}
}

describe('a service that echoes what it received', () => {
	const cases: Array<{ what: string; parameters: INodeParameters; secret: string }> = [
		{ what: 'SIP Update: the SIP password', parameters: sipUpdate, secret: SIP_PASSWORD },
		{
			what: 'Webhook Set: the token of the webhook URL',
			parameters: webhookSet,
			secret: WEBHOOK_TOKEN,
		},
	];
	const answers: Answer[] = ['json-400', 'text-400', 'text-500'];

	it.each(cases.flatMap((entry) => answers.map((answer) => ({ ...entry, answer }))))(
		'$what, answered $answer: the secret went out but shows nowhere',
		async ({ parameters, secret, answer }) => {
			answerWith(answer);
			for (const continueOnFail of [false, true]) {
				const result = await runNode({ parameters, credentials: credentials(), continueOnFail });
				// The canary really went out and really came back: otherwise the test would prove nothing.
				expect(service.requests.at(-1)!.body.toString('utf8')).toContain(
					JSON.stringify(secret).slice(1, -1),
				);
				const text = shown(result);
				expect(text).toContain('***');
				expectNoneOf(text, [secret, API_KEY]);
				expect(Boolean(result.error)).toBe(!continueOnFail);
			}
		},
	);

	it.each(cases)(
		'$what, answered 2xx: the answer is the output as sent, but for values wholly the key or the token and secrets of 16 characters or more wherever they stand',
		async ({ parameters, secret }) => {
			service.handle((request, res) =>
				json(res, 200, {
					message: 'updated',
					received: echo(request),
					apiKey: API_KEY,
					bearer: `Bearer ${API_KEY}`,
					token: WEBHOOK_TOKEN,
				}),
			);
			const result = await runNode({ parameters, credentials: credentials() });
			expect(result.error).toBeUndefined();
			const received = echo(service.requests.at(-1)!);
			expect(received).toContain(JSON.stringify(secret).slice(1, -1));
			// The key and the 16-character SIP password go from inside the echo; the 14-character token stays.
			const long = [API_KEY, ...(secret.length >= 16 ? [secret] : [])];
			expect(result.items.map((item) => item.json)).toEqual([
				{
					message: 'updated',
					received: long.reduce((text, held) => text.split(held).join('***'), received),
					apiKey: '***',
					bearer: '***',
					token: secret === WEBHOOK_TOKEN ? '***' : WEBHOOK_TOKEN,
				},
			]);
		},
	);

	it("a text/plain error shows the service's own text (without the secret) instead of a generic message", async () => {
		answerWith('text-400');
		const result = await runNode({ parameters: sipUpdate, credentials: credentials() });
		expect(result.error?.message).toMatch(
			/^Voice AI rejected the request: rejected what you sent: PATCH \/sip\/sip2 /,
		);
		expect(result.error?.message).toContain('"sip_password":"***"');
	});

	it('a long message is cut after the secrets are removed, so no part of one is left at the cut', async () => {
		for (const pad of [470, 475, 480, 485, 490]) {
			service.handle((_, res) => {
				res.writeHead(400, { 'Content-Type': 'text/plain' });
				res.end(`${'x'.repeat(pad)} ${SIP_PASSWORD} and more text after it`);
			});
			const result = await runNode({ parameters: sipUpdate, credentials: credentials() });
			expect(result.error?.message).toMatch(/^Voice AI rejected the request: x+/);
			expect(result.error?.message).not.toMatch(/ T(u(l(i(p( (H(a(r)?)?)?)?)?)?)?)?\.\.\.$/);
		}
	});
});

describe('user info in the base URL', () => {
	const withUserInfo = (url: string) =>
		url.replace('http://', `http://${URL_USER}:${URL_PASSWORD}@`);

	it('is refused by name before anything is sent, and shows nowhere', async () => {
		answerWith('text-500');
		const result = await runNode({
			parameters: { resource: 'contact', operation: 'getListNames', returnAll: true },
			credentials: credentials(withUserInfo(service.url)),
		});
		expect(result.error?.message).toMatch(
			/^The Voice AI credential has no valid base URL: the Base URL holds a user name or password before the host/,
		);
		expect(service.requests).toEqual([]);
		expectNoneOf(shown(result), [`${URL_USER}:${URL_PASSWORD}`, URL_PASSWORD]);
	});
});

describe("the trigger's registration", () => {
	it('an error echoing the registered URL shows neither its token nor the key', async () => {
		// The trigger may first read the key's agents (which account it is): an empty list.
		service.handle((request, res) => {
			if (request.method === 'GET' && request.url === '/callback/standardCampaign')
				return json(res, 200, []);
			res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
			res.end(`rejected what you sent: ${echo(request)}`);
		});
		const flow = new TriggerWorkflow({ baseUrl: service.url, apiKey: API_KEY });
		const failure = await flow.activate().then(
			() => undefined,
			(error: unknown) => error as Error & { description?: string },
		);
		expect(failure?.message).toMatch(
			/^Voice AI rejected the request: rejected what you sent: POST \/webhook\/insert-webhook/,
		);
		const sent = JSON.parse(service.requests.at(-1)!.body.toString('utf8')) as { webhook: string };
		const token = new URL(sent.webhook).searchParams.get('token')!;
		expect(token.length).toBeGreaterThan(20);
		expectNoneOf(JSON.stringify(failure, Object.getOwnPropertyNames(failure)), [token, API_KEY]);
	});
});
