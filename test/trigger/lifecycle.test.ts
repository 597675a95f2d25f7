/**
 * The trigger's webhook lifecycle against the sandbox over HTTP, driven through n8n-core's real
 * HookContext the way n8n's CLI drives it (harness/triggerWorkflow.ts names each step it mirrors).
 */
import { createHash } from 'crypto';

import { forgetAllAccounts } from '../../nodes/VoiceAi/accountOwnership/organizations';
import { isLocalHost } from '../../nodes/VoiceAi/accountOwnership/registration';
import { TriggerHarness, TriggerWorkflow } from '../../harness/triggerWorkflow';

const ORG = 'org_acme';
const harness = new TriggerHarness();
let apiKey: string;

beforeAll(() => {
	apiKey = harness.sandbox.orgs[0].apiKey;
});

// Each test is a freshly started n8n process (the account's owners are kept in the process).
beforeEach(() => forgetAllAccounts());

function workflow(parameters = {}): TriggerWorkflow {
	return harness.workflow({ parameters });
}

async function registrations(): Promise<number> {
	const log = await harness.admin.request<{ method: string; path: string }[]>(
		'GET',
		`/__sandbox/requests?org=${ORG}`,
	);
	return log.filter((entry) => entry.method === 'POST' && entry.path === '/webhook/insert-webhook')
		.length;
}

function tokenOf(url: string | null): string {
	return new URL(url!).searchParams.get('token') ?? '';
}

function withoutToken(url: string | null): string {
	const parsed = new URL(url!);
	parsed.searchParams.delete('token');
	return parsed.toString();
}

function record(flow: TriggerWorkflow) {
	return (flow.saved as Record<string, { registration?: Record<string, string> }>)[
		`node:Voice AI Trigger`
	]?.registration;
}

describe('activation', () => {
	test('registers the production URL with a token and keeps only its hash in static data', async () => {
		const flow = workflow();
		expect(await flow.activate()).toBe(true);

		const registered = await harness.admin.accountWebhook(ORG);
		expect(withoutToken(registered)).toBe(flow.productionUrl);
		const token = tokenOf(registered);
		expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(record(flow)).toMatchObject({
			kind: 'production',
			webhookUrl: flow.productionUrl,
			tokenHash: createHash('sha256').update(token).digest('hex'),
		});
		expect(JSON.stringify(flow.saved)).not.toContain(token);
		expect(JSON.stringify(flow.saved)).not.toContain(apiKey);
	});

	test('each workflow gets its own token', async () => {
		const a = workflow();
		const b = workflow({ whenHeld: 'takeOver' });
		await a.activate();
		const tokenA = tokenOf(await harness.admin.accountWebhook(ORG));
		await b.activate();
		const tokenB = tokenOf(await harness.admin.accountWebhook(ORG));
		expect(tokenA).not.toBe(tokenB);
	});

	test('checkExists trusts static data while n8n runs, and registers again after a restart', async () => {
		const flow = workflow();
		await flow.activate();
		const before = await registrations();

		// Re-publishing while active: static data says this URL is registered, nothing is sent.
		expect(await flow.activate('update')).toBe(false);
		expect(await registrations()).toBe(before);

		// Something else takes the account while n8n is down (another n8n, a test listen cut short);
		// on restart ('init') this one registers again in the fresh process.
		flow.live = undefined; // n8n stops
		forgetAllAccounts();
		const other = workflow();
		await other.activate();
		expect(withoutToken(await harness.admin.accountWebhook(ORG))).toBe(other.productionUrl);
		forgetAllAccounts();
		expect(await flow.activate('init')).toBe(true);
		expect(withoutToken(await harness.admin.accountWebhook(ORG))).toBe(flow.productionUrl);
		expect(await registrations()).toBe(before + 2);
	});

	test('a changed API key makes checkExists register again with the new token', async () => {
		const flow = workflow();
		await flow.activate();
		const oldToken = tokenOf(await harness.admin.accountWebhook(ORG));
		const key = await harness.admin.request<{ apiKey: string }>(
			'POST',
			`/__sandbox/orgs/${ORG}/keys`,
			{
				name: 'rotated',
			},
		);
		flow.credential.apiKey = key.apiKey;

		expect(await flow.activate('update')).toBe(true);
		const newToken = tokenOf(await harness.admin.accountWebhook(ORG));
		expect(newToken).not.toBe(oldToken);
	});

	test('a refused registration fails activation with the service message, stores nothing, changes nothing', async () => {
		const good = workflow();
		await good.activate();
		const before = await harness.admin.accountWebhook(ORG);

		const flow = new TriggerWorkflow({
			baseUrl: harness.sandbox.baseUrl,
			apiKey: 'ct_not_a_real_key',
		});
		const failure = flow.activate();
		await expect(failure).rejects.toThrow(/^Voice AI refused the API key \(401\)/);
		const error = await failure.catch((e: Error) => e);
		expect(JSON.stringify(error)).not.toContain('ct_not_a_real_key');
		expect(String((error as Error).message)).not.toContain('token=');
		expect(record(flow)).toBeUndefined();
		expect(await harness.admin.accountWebhook(ORG)).toBe(before);
	});

	test('a 500 from the service is repeated (setting the same URL twice is harmless)', async () => {
		await harness.admin.request('POST', '/__sandbox/faults', {
			method: 'POST',
			path: '/webhook/insert-webhook',
			kind: 'status-500',
			times: 1,
		});
		const flow = workflow();
		try {
			await flow.activate();
		} finally {
			await harness.admin.request('DELETE', '/__sandbox/faults');
		}
		expect(withoutToken(await harness.admin.accountWebhook(ORG))).toBe(flow.productionUrl);
	});

	test('a replacement URL that is not http(s) fails activation before anything is registered', async () => {
		const before = await registrations();
		const flow = workflow({
			onDeactivation: 'replacementUrl',
			replacementUrl: 'ftp://example.com/x',
		});
		await expect(flow.activate()).rejects.toThrow(
			'Replacement Webhook URL must be an http:// or https:// URL',
		);
		expect(await registrations()).toBe(before);
	});

	test('a replacement URL whose host the URL parser maps fails activation, naming the host it contacts', async () => {
		const before = await registrations();
		const flow = workflow({
			onDeactivation: 'replacementUrl',
			replacementUrl:
				'https://crm.example\u2215voice.attacker.test/hook?token=tok_0123456789abcdef',
		});
		await expect(flow.activate()).rejects.toThrow(
			'Replacement Webhook URL holds a host the URL parser has to map: the URL parser contacts crm.xn--examplevoice-',
		);
		expect(await registrations()).toBe(before);
	});
});

describe('listen for test event', () => {
	test('takes the account for the test URL, then puts the production URL back with its token', async () => {
		const flow = workflow();
		await flow.activate();
		const production = await harness.admin.accountWebhook(ORG);

		await flow.startTestListen();
		const testRegistration = await harness.admin.accountWebhook(ORG);
		expect(withoutToken(testRegistration)).toBe(flow.testUrl);
		expect(tokenOf(testRegistration)).not.toBe(tokenOf(production));
		// The production static data is untouched by the test listen.
		expect(record(flow)?.kind).toBe('production');

		await flow.endTestListen();
		expect(await harness.admin.accountWebhook(ORG)).toBe(production);
	});

	test('every test listen gets a new random token', async () => {
		const flow = workflow({ whenOwnerUnknown: 'listen' });
		await flow.startTestListen();
		const first = tokenOf(await harness.admin.accountWebhook(ORG));
		await flow.endTestListen();
		await flow.startTestListen();
		const second = tokenOf(await harness.admin.accountWebhook(ORG));
		await flow.endTestListen();
		expect(first).not.toBe(second);
	});

	test('on an account this n8n has not seen since it started, it is refused and registers nothing', async () => {
		const before = await registrations();
		const flow = workflow({ whenOwnerUnknown: 'refuse' });
		await expect(flow.startTestListen()).rejects.toThrow(
			"n8n cannot tell whether a published workflow receives this Voice AI account's deliveries",
		);
		expect(await registrations()).toBe(before);
	});

	test('with no published workflow it registers no production URL when it ends (the notice says so)', async () => {
		const flow = workflow({ whenOwnerUnknown: 'listen' });
		await flow.startTestListen();
		const testRegistration = await harness.admin.accountWebhook(ORG);
		await flow.endTestListen();
		expect(await harness.admin.accountWebhook(ORG)).toBe(testRegistration);
	});
});

describe('deactivation', () => {
	test('default: the account webhook is left as is and static data forgets the registration', async () => {
		const flow = workflow();
		await flow.activate();
		const registered = await harness.admin.accountWebhook(ORG);
		const before = await registrations();

		await flow.deactivate();
		expect(await harness.admin.accountWebhook(ORG)).toBe(registered);
		expect(await registrations()).toBe(before);
		expect(record(flow)).toBeUndefined();

		// Activating again registers again (static data no longer claims the URL).
		expect(await flow.activate()).toBe(true);
	});

	test('"Point to a URL I Give" registers the replacement URL', async () => {
		const flow = workflow({
			onDeactivation: 'replacementUrl',
			replacementUrl: 'https://crm.example.com/voice',
		});
		await flow.activate();
		await flow.deactivate();
		expect(await harness.admin.accountWebhook(ORG)).toBe('https://crm.example.com/voice');
		expect(record(flow)).toBeUndefined();
	});

	test('a refused replacement fails the deactivation and static data keeps the registration', async () => {
		const key = await harness.admin.request<{ id: string; apiKey: string }>(
			'POST',
			`/__sandbox/orgs/${ORG}/keys`,
			{ name: 'soon revoked' },
		);
		const flow = new TriggerWorkflow({
			baseUrl: harness.sandbox.baseUrl,
			apiKey: key.apiKey,
			parameters: {
				onDeactivation: 'replacementUrl',
				replacementUrl: 'https://crm.example.com/voice',
			},
		});
		await flow.activate();
		const registered = await harness.admin.accountWebhook(ORG);
		await harness.admin.request('POST', `/__sandbox/keys/${key.id}/revoke`);
		await expect(flow.deactivate()).rejects.toThrow(/Voice AI refused the API key \(401\)/);
		expect(await harness.admin.accountWebhook(ORG)).toBe(registered);
		expect(record(flow)?.kind).toBe('production');
	});
});

describe('a webhook URL the service cannot reach (issue 35.2)', () => {
	test.each([
		['localhost', true],
		['LOCALHOST.', true],
		['api.localhost', true],
		['127.0.0.1', true],
		['127.1', true],
		['0x7f.0.0.1', true],
		['0.0.0.0', true],
		['10.1.2.3', true],
		['172.16.0.1', true],
		['172.31.255.255', true],
		['192.168.1.20', true],
		['169.254.1.1', true],
		['100.64.0.1', true],
		['[::1]', true],
		['[fd00::1]', true],
		['[fe80::1]', true],
		['[::ffff:127.0.0.1]', true],
		['[::ffff:10.0.0.1]', true],
		['n8n.local', true],
		['n8n', true],
		['host.docker.internal', true],
		['n8n.corp.internal', true],
		['n8n.home.arpa', true],
		['n8n.lan', true],
		['[fec0::1]', true],
		['[::127.0.0.1]', true],
		['[::7f00:1]', true],
		['[::a00:1]', true],
		['[64:ff9b::127.0.0.1]', true],
		['[64:ff9b::c0a8:114]', true],
		['172.32.0.1', false],
		['8.8.8.8', false],
		['[2001:db8::1]', false],
		['n8n.example.com', false],
		['10.example.com', false],
		['n8n.localdomain.example', false],
		['example.internal.com', false],
		['lan.example.com', false],
		['home.arpa.example.com', false],
		['[64:ff9b::808:808]', false],
		['[::808:808]', false],
		['[fbff::1]', false],
	])('the host of http://%s:5678/ is local: %s', (host, local) => {
		expect(isLocalHost(new URL(`http://${host}:5678/`).hostname)).toBe(local);
	});

	function remoteService(parameters = {}, n8nBaseUrl = 'http://localhost:5678'): TriggerWorkflow {
		return new TriggerWorkflow({
			baseUrl: 'https://api.voiceai.invalid',
			apiKey,
			parameters,
			n8nBaseUrl,
		});
	}

	test('publishing fails naming the URL and WEBHOOK_URL, before anything is sent', async () => {
		const flow = remoteService();
		const failure = await flow.activate().catch((error: Error & { description?: string }) => error);
		expect(failure).toBeInstanceOf(Error);
		expect((failure as Error).message).toBe(
			`Voice AI at api.voiceai.invalid cannot reach n8n at ${flow.productionUrl}: set n8n's WEBHOOK_URL to an address the service can reach (a public host name, a reverse proxy or a tunnel)`,
		);
		expect((failure as { description?: string }).description).toContain(
			'Options > Allow a Local Webhook URL',
		);
		expect(record(flow)).toBeUndefined();
	});

	test("Docker Desktop's usual WEBHOOK_URL, http://host.docker.internal:5678/, is refused the same way", async () => {
		const flow = remoteService({}, 'http://host.docker.internal:5678');
		await expect(flow.activate()).rejects.toThrow(
			`Voice AI at api.voiceai.invalid cannot reach n8n at ${flow.productionUrl}: set n8n's WEBHOOK_URL`,
		);
		expect(record(flow)).toBeUndefined();
	});

	test('"Listen for test event" shows the same', async () => {
		const flow = remoteService({ whenOwnerUnknown: 'listen' }, 'http://192.168.1.20:5678');
		await expect(flow.startTestListen()).rejects.toThrow(
			`Voice AI at api.voiceai.invalid cannot reach n8n at ${flow.testUrl}: set n8n's WEBHOOK_URL`,
		);
	});

	test('Allow a Local Webhook URL turns it off: publishing goes on to the service', async () => {
		const flow = remoteService({ options: { allowLocalUrl: true } });
		const failure = await flow.activate().catch((error: Error) => error);
		// The service's host does not exist: the request to it fails, not the check.
		expect((failure as Error).message).not.toContain('cannot reach n8n');
		expect((failure as Error).message).toMatch(/Voice AI/);
	});

	test("a public n8n URL, or a service on n8n's own network, is not refused", async () => {
		await expect(remoteService({}, 'https://n8n.example.com').activate()).rejects.not.toThrow(
			'cannot reach n8n',
		);
		const local = new TriggerWorkflow({
			baseUrl: harness.sandbox.baseUrl,
			apiKey,
			n8nBaseUrl: 'http://localhost:5678',
		});
		expect(await local.activate()).toBe(true);
	});
});
