/**
 * Every public endpoint of the sandbox against: no key, malformed keys, a revoked key, another
 * organization's key with this organization's ids, the key in the query string, the key in the body.
 * Each gives the spec's status (401, or 404 for another organization's ids) and changes nothing: both
 * organizations' state, the fake carrier's log and the deliveries are the same before and after.
 */
import { SandboxFixture } from '../../harness/sandboxFixture';

const fx = new SandboxFixture();
let revokedKey: string;

beforeAll(async () => {
	await fx.start();
	const key = await fx.admin<{ id: string; apiKey: string }>('POST', '/orgs/org_acme/keys', {
		name: 'revoked',
	});
	await fx.admin('POST', `/keys/${key.id}/revoke`);
	revokedKey = key.apiKey;
});
afterAll(async () => await fx.stop());

const ACME_UUID = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a01';

type Body = { json: unknown } | { form: Record<string, string> } | undefined;

interface Endpoint {
	name: string;
	method: string;
	/** Acme's ids in the path. */
	path: string;
	/** A valid body for Acme. */
	body?: (secret?: string) => Body;
	/** With Globex's key: 404 (Acme's ids) or the status of Globex acting on its own tenant. */
	crossOrg: number;
}

const ENDPOINTS: Endpoint[] = [
	{ name: 'list agents', method: 'GET', path: '/callback/standardCampaign', crossOrg: 200 },
	{
		name: 'create agent',
		method: 'POST',
		path: '/callback/standardCampaign',
		body: (s = 'x') => ({
			json: { phoneNumber: '+14155550190', agentName: 'Intruder', task: s, selectedVoice: 'maya' },
		}),
		crossOrg: 201,
	},
	{
		name: 'update chatbot',
		method: 'PATCH',
		path: '/chatbot/cb_acme_support',
		body: (s = 'Pwned') => ({ form: { chatbotName: 'Pwned', welcome_message: s } }),
		crossOrg: 404,
	},
	{ name: 'get SIP', method: 'GET', path: '/sip/%2B14155550101', crossOrg: 404 },
	{
		name: 'update SIP',
		method: 'PATCH',
		path: '/sip/sip2',
		body: (s = 'pwned') => ({ json: { phone_number: '+14155550101', trunkName: s } }),
		crossOrg: 404,
	},
	{
		name: 'update SIP by config id',
		method: 'PATCH',
		path: '/sip/sip2',
		body: (s = 'pwned') => ({
			json: { phone_number: '+442071838750', uuid_config_id: ACME_UUID, trunkName: s },
		}),
		crossOrg: 404,
	},
	{
		name: 'detach SIP',
		method: 'POST',
		path: '/sip/detach2',
		body: (s) => ({
			json: {
				phone_number: '+14155550101',
				directions: [{ type: 'inbound' }],
				...(s ? { note: s } : {}),
			},
		}),
		crossOrg: 404,
	},
	{ name: 'trust products', method: 'GET', path: '/agency/twilio/trust-products', crossOrg: 200 },
	{ name: 'contact list names', method: 'GET', path: '/contacts/list-names', crossOrg: 200 },
	{
		name: 'set webhook',
		method: 'POST',
		path: '/webhook/insert-webhook',
		body: (s) => ({ json: { webhook: `https://evil.example.com/hook${s ? `?k=${s}` : ''}` } }),
		crossOrg: 200,
	},
];

async function send(
	endpoint: Endpoint,
	options: { headers?: Record<string, string>; query?: string; body?: Body } = {},
): Promise<{ status: number; text: string }> {
	const body = options.body === undefined ? endpoint.body?.() : options.body;
	const headers: Record<string, string> = { ...options.headers };
	let payload: string | FormData | undefined;
	if (body && 'json' in body) {
		headers['content-type'] = 'application/json';
		payload = JSON.stringify(body.json);
	} else if (body && 'form' in body) {
		payload = new FormData();
		for (const [name, value] of Object.entries(body.form)) payload.append(name, value);
	}
	const res = await fetch(`${fx.sandbox.baseUrl}${endpoint.path}${options.query ?? ''}`, {
		method: endpoint.method,
		headers,
		body: payload,
	});
	return { status: res.status, text: await res.text() };
}

/** Everything an attack could change. */
async function world(): Promise<string> {
	const [acme, globex, acmeCarrier, globexCarrier, deliveries] = await Promise.all([
		fx.state('org_acme'),
		fx.state('org_globex'),
		fx.admin('GET', '/orgs/org_acme/carrier-log'),
		fx.admin('GET', '/orgs/org_globex/carrier-log'),
		fx.admin('GET', '/deliveries'),
	]);
	return JSON.stringify({ acme, globex, acmeCarrier, globexCarrier, deliveries });
}

async function acmeWorld(): Promise<string> {
	return JSON.stringify({
		acme: await fx.state('org_acme'),
		carrier: await fx.admin('GET', '/orgs/org_acme/carrier-log'),
	});
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const MALFORMED: Array<[string, Record<string, string>]> = [
	['no key', {}],
	['an empty bearer', { authorization: 'Bearer ' }],
	[
		'a Basic scheme',
		{ authorization: `Basic ${Buffer.from('org_acme:secret').toString('base64')}` },
	],
	['a key without ct_', { 'x-api-key': 'sk_0123456789012345678901234567890123456789' }],
	['a truncated key', { 'x-api-key': 'ct_short' }],
	['a never issued key', { 'x-api-key': `ct_${'A'.repeat(40)}` }],
	['an organization id as key', { 'x-api-key': 'org_acme' }],
];

const matrix = ENDPOINTS.flatMap((endpoint) => [
	...MALFORMED.map(([what, headers]) => ({ endpoint, what, headers: () => headers })),
	{ endpoint, what: 'a revoked key (bearer)', headers: () => bearer(revokedKey) },
	{ endpoint, what: 'a revoked key (x-api-key)', headers: () => ({ 'x-api-key': revokedKey }) },
	{
		endpoint,
		what: 'two different valid keys',
		headers: () => ({ ...bearer(fx.acme.apiKey), 'x-api-key': fx.globex.apiKey }),
	},
]);

describe('without a valid key: 401 and nothing changes', () => {
	it.each(
		matrix.map((entry) => ({
			...entry,
			name: `${entry.endpoint.method} ${entry.endpoint.name} with ${entry.what}`,
		})),
	)('$name', async ({ endpoint, headers }) => {
		const before = await world();
		const reply = await send(endpoint, { headers: headers() });
		expect(reply.status).toBe(401);
		expect(JSON.parse(reply.text)).toMatchObject({ error: { status: 401, code: 'unauthorized' } });
		expect(await world()).toBe(before);
	});
});

describe("another organization's key with this organization's ids", () => {
	it.each(ENDPOINTS)('$method $name: $crossOrg, and the victim is untouched', async (endpoint) => {
		const before = await acmeWorld();
		const reply = await send(endpoint, { headers: bearer(fx.globex.apiKey) });
		expect(reply.status).toBe(endpoint.crossOrg);
		if (endpoint.crossOrg === 404) {
			// the same answer as for an id that does not exist
			expect(JSON.parse(reply.text)).toMatchObject({ error: { status: 404, code: 'not_found' } });
		}
		expect(reply.text).not.toMatch(
			/org_acme|cb_acme|\+1415555010\d|acme-|Reception|Leads|Patients|6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a0[123]/,
		);
		expect(await acmeWorld()).toBe(before);
	});
});

describe('the key in the query string: 401, nothing changes, the key is flagged as exposed', () => {
	const forms: Array<[string, (key: string) => string]> = [
		['api_key=', (key) => `?api_key=${key}`],
		['token=', (key) => `?token=${key}`],
		['a key-shaped value under any name', (key) => `?q=${key}`],
		['percent-encoded', (key) => `?x=${encodeURIComponent(key).replace(/_/g, '%5F')}`],
	];
	const cases = ENDPOINTS.flatMap((endpoint, index) => {
		const [form, query] = forms[index % forms.length];
		return [{ endpoint, form, query, name: `${endpoint.method} ${endpoint.name} with ${form}` }];
	});

	it.each(cases)('$name', async ({ endpoint, query }) => {
		const key = await fx.admin<{ id: string; apiKey: string }>('POST', '/orgs/org_acme/keys', {
			name: 'leaked in a URL',
		});
		const before = await world();
		const reply = await send(endpoint, { headers: bearer(key.apiKey), query: query(key.apiKey) });
		expect(reply.status).toBe(401);
		expect(await world()).toBe(before);
		const keys = await fx.admin<Array<{ id: string; exposed: boolean }>>(
			'GET',
			'/orgs/org_acme/keys',
		);
		expect(keys.find((entry) => entry.id === key.id)?.exposed).toBe(true);
		const log = await fx.admin<Array<{ query: Record<string, string> }>>('GET', '/requests');
		expect(JSON.stringify(log)).not.toContain(key.apiKey);
	});

	it('without any header the key in the URL does not authenticate either', async () => {
		const before = await world();
		const reply = await send(ENDPOINTS[0], { query: `?api_key=${fx.acme.apiKey}` });
		expect(reply.status).toBe(401);
		expect(await world()).toBe(before);
	});
});

describe('the key in the body: 401 and nothing changes', () => {
	const withBody = ENDPOINTS.filter((endpoint) => endpoint.body);

	it.each(withBody)(
		'$method $name (key in a field of the body, valid key in the header)',
		async (endpoint) => {
			const before = await world();
			const reply = await send(endpoint, {
				headers: bearer(fx.acme.apiKey),
				body: endpoint.body!(fx.acme.apiKey),
			});
			expect(reply.status).toBe(401);
			expect(await world()).toBe(before);
		},
	);

	it.each(
		withBody.filter((endpoint) => endpoint.method !== 'PATCH' || endpoint.path.startsWith('/sip')),
	)('$method $name (only the key in the body, no header)', async (endpoint) => {
		const before = await world();
		const json = (endpoint.body!() as { json: Record<string, unknown> }).json;
		const reply = await send(endpoint, { body: { json: { ...json, api_key: fx.acme.apiKey } } });
		expect(reply.status).toBe(401);
		expect(await world()).toBe(before);
	});

	it('the key inside the webhook URL itself is refused', async () => {
		const before = await world();
		const reply = await send(ENDPOINTS[9], {
			headers: bearer(fx.acme.apiKey),
			body: { json: { webhook: `https://crm.example.com/hook/${fx.acme.apiKey}` } },
		});
		expect(reply.status).toBe(401);
		expect(await world()).toBe(before);
	});
});

describe('the valid requests themselves work (the attacks above failed for the reason tested)', () => {
	it.each(ENDPOINTS.filter((endpoint) => endpoint.method === 'GET'))(
		'$method $name answers 200 with the right key',
		async (endpoint) => {
			expect((await send(endpoint, { headers: bearer(fx.acme.apiKey) })).status).toBe(200);
		},
	);
});
