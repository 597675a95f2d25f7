/**
 * A base URL that answers with a redirect to ANOTHER origin (a second loopback server): for every 3xx
 * status, GET and POST, both header forms of the key, the credential test and the trigger's
 * registration, the other origin receives nothing at all (so neither the key nor the body), and the
 * node's error names the status and the origin it was pointed to.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode, testCredential } from '../../harness/engine';
import type { Loopback } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { TriggerWorkflow } from '../../harness/triggerWorkflow';

const API_KEY = 'ct_redirect_canary_0123456789abcdef';
const STATUSES = [301, 302, 303, 307, 308];
const HEADERS = ['bearer', 'xApiKey'] as const;

let front: Loopback;
let other: Loopback;

beforeAll(async () => {
	other = await startLoopback((_, res) => json(res, 200, { message: 'the other origin answered' }));
	front = await startLoopback();
});

afterAll(async () => {
	await front?.close();
	await other?.close();
});

/** `answerAgentList`: the agent list (which a trigger reads first to tell accounts apart) answers `[]`. */
function redirectWith(status: number, answerAgentList = false): void {
	front.handle((request, res) => {
		if (
			answerAgentList &&
			request.method === 'GET' &&
			request.url === '/callback/standardCampaign'
		) {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end('[]');
			return;
		}
		res.writeHead(status, { Location: `${other.url}${request.url}`, 'Content-Type': 'text/plain' });
		res.end(`Moved to ${other.url}${request.url}`);
	});
}

beforeEach(() => {
	front.requests.length = 0;
	other.requests.length = 0;
});

const OPERATIONS: Array<{ method: string; parameters: INodeParameters }> = [
	{
		method: 'GET',
		parameters: { resource: 'contact', operation: 'getListNames', returnAll: true },
	},
	{
		method: 'POST',
		parameters: {
			resource: 'webhook',
			operation: 'set',
			whenTriggerHolds: 'takeOver',
			webhookUrl: 'https://crm.example.com/hook?token=webhook-token-canary',
		},
	},
];

const cases = STATUSES.flatMap((status) =>
	HEADERS.flatMap((authHeader) =>
		OPERATIONS.map(({ method, parameters }) => ({ status, authHeader, method, parameters })),
	),
);

describe('an action meets a redirect to another origin', () => {
	it.each(cases)(
		'$status on $method with the key in $authHeader: an error naming both, nothing sent there',
		async ({ status, authHeader, method, parameters }) => {
			redirectWith(status);
			const result = await runNode({
				parameters,
				credentials: { voiceAiApi: { baseUrl: front.url, apiKey: API_KEY, authHeader } },
			});
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.message).toBe(
				`Voice AI answered ${status}, a redirect to ${other.url}; the node does not follow redirects`,
			);
			expect(result.error?.httpCode).toBe(String(status));
			expect(result.error?.description).toMatch(/Nothing was sent to/);
			// One request to the base URL (a redirect is not retried), none to the other origin.
			expect(front.requests.map((request) => request.method)).toEqual([method]);
			expect(other.requests).toEqual([]);
		},
	);

	it('a redirect within the same origin is not followed either, and the error names that origin', async () => {
		front.handle((_, res) => {
			res.writeHead(302, { Location: '/elsewhere/contacts' });
			res.end();
		});
		const result = await runNode({
			parameters: OPERATIONS[0].parameters,
			credentials: { voiceAiApi: { baseUrl: front.url, apiKey: API_KEY } },
		});
		expect(result.error?.message).toBe(
			`Voice AI answered 302, a redirect to ${front.url}; the node does not follow redirects`,
		);
		expect(front.requests).toHaveLength(1);
	});

	it('a redirect without Location says so', async () => {
		front.handle((_, res) => {
			res.writeHead(307);
			res.end();
		});
		const result = await runNode({
			parameters: OPERATIONS[0].parameters,
			credentials: { voiceAiApi: { baseUrl: front.url, apiKey: API_KEY } },
		});
		expect(result.error?.message).toBe(
			'Voice AI answered 307, a redirect to an address it did not give; the node does not follow redirects',
		);
	});
});

describe('the credential test meets a redirect to another origin', () => {
	it.each(STATUSES.flatMap((status) => HEADERS.map((authHeader) => ({ status, authHeader }))))(
		'$status with the key in $authHeader: it fails naming the status, nothing sent there',
		async ({ status, authHeader }) => {
			redirectWith(status);
			const outcome = await testCredential('voiceAiApi', {
				baseUrl: front.url,
				apiKey: API_KEY,
				authHeader,
			});
			expect(outcome.status).toBe('Error');
			expect(outcome.message).toMatch(new RegExp(`answered ${status}, a redirect`));
			expect(front.requests).toHaveLength(1);
			expect(other.requests).toEqual([]);
		},
	);
});

describe('the trigger registration meets a redirect to another origin', () => {
	it.each(STATUSES.flatMap((status) => HEADERS.map((authHeader) => ({ status, authHeader }))))(
		'$status with the key in $authHeader: publishing fails, the URL and token go nowhere else',
		async ({ status, authHeader }) => {
			redirectWith(status, true);
			const flow = new TriggerWorkflow({ baseUrl: front.url, apiKey: API_KEY });
			flow.credential.authHeader = authHeader;
			await expect(flow.activate()).rejects.toThrow(
				`Voice AI answered ${status}, a redirect to ${other.url}; the node does not follow redirects`,
			);
			expect(
				front.requests.filter((request) => request.method === 'POST').map((request) => request.url),
			).toEqual(['/webhook/insert-webhook']);
			expect(other.requests).toEqual([]);
		},
	);
});

describe('a redirect whose address holds the key', () => {
	it("the trigger's error (no router redacts it) names the redirect without the key", async () => {
		front.handle((request, res) => {
			if (request.method === 'GET') return json(res, 200, []);
			res.writeHead(302, { Location: `http://${API_KEY}.example.invalid/hook` });
			res.end();
		});
		const flow = new TriggerWorkflow({ baseUrl: front.url, apiKey: API_KEY });
		const error = (await flow.activate().catch((caught: unknown) => caught)) as Error & {
			description?: string;
		};
		expect(error.message).toMatch(/^Voice AI answered 302, a redirect to /);
		expect(JSON.stringify([error.message, error.description])).not.toContain(API_KEY);
	});
});
