/**
 * One account, one webhook: which workflow the account's webhook points at through publish, unpublish,
 * test listens, take-overs and restarts. First the ownership module on its own, then several trigger
 * workflows of one n8n process driven through n8n-core's HookContext against the sandbox
 * (harness/triggerWorkflow.ts).
 */
import { SandboxAdmin } from '../../harness/sandboxAdmin';
import { startSandbox, type Sandbox } from '../../sandbox';
import { accountKey, type KeyIdentity } from '../../nodes/VoiceAi/accountOwnership/registration';
import {
	claim,
	type Claim,
	forgetAllAccounts,
	giveBack,
	holderCutOffBySet,
	lend,
	release,
} from '../../nodes/VoiceAi/accountOwnership/organizations';
import { runNode } from '../../harness/engine';
import { type TriggerSetup, TriggerWorkflow } from '../../harness/triggerWorkflow';

type TriggerSetupMore = Omit<TriggerSetup, 'baseUrl' | 'apiKey' | 'name'>;

describe('the ownership module', () => {
	const BASE = 'https://api.example.com';
	const key = accountKey(BASE, 'ct_key');
	const id: KeyIdentity = { baseUrl: BASE, keyHash: key };
	const at = (claimId: string, claimedAt: number): Claim => ({
		id: claimId,
		workflowId: claimId,
		workflowName: `Flow ${claimId}`,
		productionUrl: `https://n8n.example.com/webhook/${claimId}/webhook`,
		token: `token-${claimId}`,
		claimedAt,
		keyHash: key,
	});
	// Each test is a freshly started process: Fail to Publish with "If n8n Cannot Tell" = Go Ahead.
	const plain = 'publishAnyway';
	const released = (state: string, next?: string) =>
		next === undefined
			? expect.objectContaining({ state })
			: expect.objectContaining({ state, next: expect.objectContaining({ id: next }) });

	beforeEach(() => forgetAllAccounts());

	test('keys accounts by base URL and key, and never holds the key itself', () => {
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(key).not.toContain('ct_key');
		expect(accountKey(BASE, 'ct_other')).not.toBe(key);
		expect(accountKey('https://eu.example.com', 'ct_key')).not.toBe(key);
	});

	test('the first claim holds; a second is refused naming the holder; a take-over stacks and unwinds', () => {
		expect(claim(id, at('A', 1), plain)).toEqual({ outcome: 'register' });
		expect(claim(id, at('B', 2), plain)).toEqual({
			outcome: 'refused',
			holder: expect.objectContaining({ workflowName: 'Flow A' }),
			unsure: false,
		});
		expect(holderCutOffBySet(id)).toEqual({
			holder: expect.objectContaining({ id: 'A' }),
			unsure: false,
		});
		expect(claim(id, at('B', 2), 'publishTakingOver')).toEqual({
			outcome: 'register',
		});
		expect(release('B')).toEqual(released('heldWithQueue', 'A'));
		expect(release('A')).toEqual(released('heldAlone'));
		expect(release('A')).toEqual({ state: 'notHolding' });
	});

	test('in a process that has not seen the organization, Fail to Publish and Take Over are refused as unknown; its own record or Go Ahead join', () => {
		expect(claim(id, at('A', 1), 'publish')).toEqual({ outcome: 'unknown' });
		expect(holderCutOffBySet(id)).toBeUndefined();
		expect(claim(id, at('A', 1), 'publish', true)).toEqual({ outcome: 'register' });
		forgetAllAccounts();
		// Take Over alone: whom it takes from could not be given the account back (issue 50 item 3).
		expect(claim(id, at('B', 2), 'publishTakingOver')).toEqual({ outcome: 'unknown' });
		expect(claim(id, at('B', 2), 'publishTakingOver', true)).toEqual({ outcome: 'register' });
		forgetAllAccounts();
		expect(claim(id, at('C', 3), 'publishAnyway')).toEqual({ outcome: 'register' });
		expect(claim(id, at('D', 4), 'publish')).toEqual(
			expect.objectContaining({ outcome: 'refused' }),
		);
	});

	test('releasing a claim that does not hold the account changes nothing', () => {
		claim(id, at('A', 1), plain);
		claim(id, at('B', 2), 'publishTakingOver');
		expect(release('A')).toEqual({ state: 'notHolding' });
		expect(holderCutOffBySet(id)).toEqual({
			holder: expect.objectContaining({ id: 'B' }),
			unsure: false,
		});
	});

	test('a claim made again (re-publish) keeps its place and registers only if it holds', () => {
		claim(id, at('A', 1), plain);
		claim(id, at('B', 2), 'publishTakingOver');
		expect(claim(id, at('A', 1), plain)).toEqual({ outcome: 'wait' });
		expect(claim(id, at('B', 2), plain)).toEqual({ outcome: 'register' });
	});

	test('restoring after a restart, in any order, ends with the latest claim holding', () => {
		const restoring = 'restart';
		expect(claim(id, at('B', 2), restoring)).toEqual({ outcome: 'register' });
		expect(claim(id, at('A', 1), restoring)).toEqual({ outcome: 'wait' });
		expect(holderCutOffBySet(id)).toEqual({
			holder: expect.objectContaining({ id: 'B' }),
			unsure: false,
		});
	});

	test('a test listen borrows the account and gives it back to whoever holds it when it ends', () => {
		expect(lend(id, 'Y/test')).toBeUndefined();
		expect(claim(id, at('A', 1), plain)).toEqual({ outcome: 'wait' }); // published during the test: registered when it ends
		expect(giveBack('Y/test')).toEqual({
			state: 'known',
			org: expect.objectContaining({ claims: [expect.objectContaining({ id: 'A' })] }),
		});
		expect(giveBack('Y/test')).toEqual({ state: 'lentToAnotherTest' });
	});

	test('unpublishing the holder during a test listen leaves the hand-back to the end of the test', () => {
		claim(id, at('A', 1), plain);
		claim(id, at('B', 2), 'publishTakingOver');
		lend(id, 'Y/test');
		expect(release('B')).toEqual({ state: 'notHolding' });
		expect(giveBack('Y/test')).toEqual({
			state: 'known',
			org: expect.objectContaining({ claims: [expect.objectContaining({ id: 'A' })] }),
		});
	});

	test('the last holder unpublished during a test listen: On Unpublish waits for the end of the test (issue 38.5)', () => {
		claim(id, at('A', 1), plain);
		lend(id, 'Y/test');
		expect(release('A')).toEqual(released('heldDuringTest'));
	});

	describe('one organization, several keys', () => {
		const keyOf = (apiKey: string, more: Partial<KeyIdentity> = {}): KeyIdentity => ({
			baseUrl: BASE,
			keyHash: accountKey(BASE, apiKey),
			...more,
		});

		test('two keys listing a common agent are one organization: the second is refused', () => {
			claim(keyOf('ct_1', { agentIds: ['ag_1', 'ag_2'] }), at('A', 1), plain);
			expect(claim(keyOf('ct_2', { agentIds: ['ag_2'] }), at('Z', 2), plain)).toEqual({
				outcome: 'refused',
				holder: expect.objectContaining({ id: 'A' }),
				unsure: false,
			});
		});

		test('keys whose agents differ are two organizations (an agency): both hold their own', () => {
			claim(keyOf('ct_1', { agentIds: ['ag_1'] }), at('A', 1), plain);
			expect(claim(keyOf('ct_2', { agentIds: ['ag_9'] }), at('G', 2), plain)).toEqual({
				outcome: 'register',
			});
			expect(claim(keyOf('ct_3', { agentIds: [] }), at('E', 3), plain)).toEqual({
				outcome: 'register',
			});
			expect(holderCutOffBySet(keyOf('ct_1'))).toEqual({
				holder: expect.objectContaining({ id: 'A' }),
				unsure: false,
			});
		});

		test('an organization without agents and one with agents are two, in either order (issue 38.7)', () => {
			claim(keyOf('ct_1', { credentialId: 'c1', agentIds: [] }), at('A', 1), plain);
			const withAgents = keyOf('ct_2', { credentialId: 'c2', agentIds: ['ag_1'] });
			const goAhead = true;
			expect(claim(withAgents, at('B', 2), 'publishTakingOver', goAhead)).toEqual({
				outcome: 'register',
			});
			expect(holderCutOffBySet(keyOf('ct_1'))).toEqual({
				holder: expect.objectContaining({ id: 'A' }),
				unsure: false,
			});
		});

		test('one key on two spellings of the base URL is one organization: its agents tell (issue 38.6)', () => {
			const spelled = (baseUrl: string): KeyIdentity => ({
				baseUrl,
				keyHash: accountKey(baseUrl, 'ct_1'),
				agentIds: ['ag_1'],
			});
			claim(spelled('http://localhost:4010'), at('A', 1), plain);
			expect(claim(spelled('http://127.0.0.1:4010'), at('B', 2), 'publish')).toEqual({
				outcome: 'refused',
				holder: expect.objectContaining({ id: 'A' }),
				unsure: false,
			});
		});

		test('a new key in the same credential (a rotation) stays with its organization', () => {
			claim(keyOf('ct_old', { credentialId: 'c1', agentIds: [] }), at('A', 1), plain);
			expect(
				claim(keyOf('ct_new', { credentialId: 'c1', agentIds: [] }), at('B', 2), plain),
			).toEqual(expect.objectContaining({ outcome: 'refused', unsure: false }));
		});

		test('when nothing tells them apart, the claim is refused, even a take-over', () => {
			claim(keyOf('ct_1', { credentialId: 'c1', agentIds: [] }), at('A', 1), plain);
			const other = keyOf('ct_2', { credentialId: 'c2', agentIds: [] });
			for (const event of ['publish', 'publishTakingOver'] as const) {
				expect(claim(other, at('Z', 2), event)).toEqual({
					outcome: 'refused',
					holder: expect.objectContaining({ id: 'A' }),
					unsure: true,
				});
			}
		});
	});
});

const ORG = 'org_acme';

/**
 * A sandbox for the describe block it is called in, handed over once started; each test starts as a
 * freshly started n8n process (the ownership state forgotten).
 */
function sandboxForEachBlock(started: (value: { sandbox: Sandbox; admin: SandboxAdmin }) => void) {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox();
		started({ sandbox, admin: new SandboxAdmin(sandbox) });
	});
	afterAll(async () => await sandbox?.close());
	beforeEach(() => forgetAllAccounts());
}

/** The URL the organization's account webhook points at, without its token. */
async function webhookWithoutToken(admin: SandboxAdmin, org: string): Promise<string> {
	const url = new URL((await admin.accountWebhook(org))!);
	url.searchParams.delete('token');
	return url.toString();
}

describe('several workflows of one n8n process, one account', () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	sandboxForEachBlock((started) => ({ sandbox, admin } = started));
	const pointsAt = (org = ORG) => webhookWithoutToken(admin, org);

	function flow(name: string, parameters = {}): TriggerWorkflow {
		return new TriggerWorkflow({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
			parameters,
			name,
		});
	}

	async function registeredToken(): Promise<string | null> {
		return new URL((await admin.accountWebhook(ORG))!).searchParams.get('token');
	}

	test('scenario 1: a test listen in an unpublished workflow gives the account back to the published one', async () => {
		const x = flow('CRM sync');
		await x.activate();
		const production = await admin.accountWebhook(ORG);
		const y = flow('Draft');
		await y.startTestListen();
		expect(await pointsAt()).toBe(y.testUrl);
		await y.endTestListen();
		expect(await admin.accountWebhook(ORG)).toBe(production);
		expect(await pointsAt()).toBe(x.productionUrl);
	});

	test('with no published workflow, a test listen registers no production URL when it ends', async () => {
		const y = flow('Draft', { whenOwnerUnknown: 'listen' });
		await y.startTestListen();
		const testRegistration = await admin.accountWebhook(ORG);
		await y.endTestListen();
		expect(await admin.accountWebhook(ORG)).toBe(testRegistration);
		expect(await pointsAt()).not.toBe(y.productionUrl);
	});

	test('a test listen in the published workflow itself gives it back to that workflow', async () => {
		const x = flow('CRM sync');
		await x.activate();
		await x.startTestListen();
		await x.endTestListen();
		expect(await pointsAt()).toBe(x.productionUrl);
	});

	test('scenario 2: publishing a second workflow fails naming the first, and the first keeps the account', async () => {
		const a = flow('Sync A');
		await a.activate();
		const b = flow('Sync B');
		await expect(b.activate()).rejects.toThrow(
			`held by the published workflow "Sync A" (ID ${a.workflowId})`,
		);
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test('scenario 2 with take-over: the taker receives; unpublishing it gives the account back', async () => {
		const a = flow('Sync A');
		await a.activate();
		const aToken = await registeredToken();
		const b = flow('Sync B', { whenHeld: 'takeOver' });
		await b.activate();
		expect(await pointsAt()).toBe(b.productionUrl);
		await b.deactivate();
		expect(await pointsAt()).toBe(a.productionUrl);
		expect(await registeredToken()).toBe(aToken);
	});

	test("the holder unpublished during a test listen: the test's end hands back to the workflow before it, or applies On Unpublish's URL (issue 38.5)", async () => {
		const toUrl = {
			onDeactivation: 'replacementUrl',
			replacementUrl: 'https://crm.example.com/after',
		};
		const a = flow('Sync A', toUrl);
		await a.activate();
		const b = flow('Sync B', { ...toUrl, whenHeld: 'takeOver' });
		await b.activate();
		const y = flow('Draft');
		await y.startTestListen();
		await b.deactivate();
		await y.endTestListen();
		expect(await pointsAt()).toBe(a.productionUrl);
		await y.startTestListen();
		await a.deactivate();
		expect(await pointsAt()).toBe(y.testUrl);
		await y.endTestListen();
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/after');
	});

	test("an unpublish and the end of a test listen at the same moment: one decision after the other, the account ends on On Unpublish's URL", async () => {
		const h = flow('Sync H', {
			onDeactivation: 'replacementUrl',
			replacementUrl: 'https://crm.example.com/after',
		});
		await h.activate();
		const y = flow('Draft');
		await y.startTestListen();
		// The test's hand-back to H is answered 500 once and sent again, while H's unpublish goes on.
		await admin.request('POST', '/__sandbox/faults', {
			kind: 'status-500',
			path: '/webhook/insert-webhook',
			times: 1,
		});
		await Promise.all([y.endTestListen(), h.deactivate()]);
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/after');
	});

	test('unpublishing the holder hands the account to the other published workflow, and a later publish still needs the option', async () => {
		const a = flow('Sync A');
		await a.activate();
		const b = flow('Sync B', { whenHeld: 'takeOver' });
		await b.activate();
		await a.deactivate(); // A does not hold it: nothing changes
		expect(await pointsAt()).toBe(b.productionUrl);
		await b.deactivate(); // nobody else wants it: left as is
		expect(await pointsAt()).toBe(b.productionUrl);
		await a.activate();
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test('after a restart the published owner holds the account again, whatever order n8n starts them in', async () => {
		const a = flow('Sync A');
		await a.activate();
		const b = flow('Sync B', { whenHeld: 'takeOver' });
		await b.activate();
		// n8n restarts while a test listen holds the account: the process forgets everything.
		const y = flow('Draft');
		await y.startTestListen();
		forgetAllAccounts();
		a.live = undefined; // n8n stops
		b.live = undefined;
		await b.activate('init');
		await a.activate('init');
		expect(await pointsAt()).toBe(b.productionUrl);
		// And it still knows who to give a later test listen back to.
		await y.startTestListen();
		await y.endTestListen();
		expect(await pointsAt()).toBe(b.productionUrl);
		await b.deactivate();
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test('a hand-over the service refuses fails loudly, naming the workflow left without deliveries', async () => {
		const a = flow('Sync A');
		await a.activate();
		const b = flow('Sync B', { whenHeld: 'takeOver' });
		await b.activate();
		await admin.request('POST', '/__sandbox/faults', {
			kind: 'status-500',
			path: '/webhook/insert-webhook',
			times: 20,
		});
		try {
			await expect(b.deactivate()).rejects.toThrow(
				/Could not point the Voice AI account webhook at workflow "Sync A"/,
			);
		} finally {
			await admin.request('DELETE', '/__sandbox/faults');
		}
		expect(await pointsAt()).toBe(b.productionUrl);
	});
});

describe('one organization, several keys or credentials (issue 32.1)', () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	sandboxForEachBlock((started) => ({ sandbox, admin } = started));
	const pointsAt = (org = ORG) => webhookWithoutToken(admin, org);

	async function newKey(org = ORG): Promise<{ id: string; apiKey: string }> {
		return await admin.request('POST', `/__sandbox/orgs/${org}/keys`, { name: 'n8n' });
	}

	function flow(name: string, apiKey: string, more: Partial<TriggerSetupMore> = {}) {
		return new TriggerWorkflow({ baseUrl: sandbox.baseUrl, apiKey, name, ...more });
	}

	async function registeredToken(org = ORG): Promise<string | null> {
		return new URL((await admin.accountWebhook(org))!).searchParams.get('token');
	}

	test('a second key of the organization with Fail to Publish is refused, naming the holder', async () => {
		const a = flow('Sync A', (await newKey()).apiKey);
		await a.activate();
		const z = flow('Sync Z', (await newKey()).apiKey);
		await expect(z.activate()).rejects.toThrow(
			`held by the published workflow "Sync A" (ID ${a.workflowId})`,
		);
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test('with Take Over the second key takes it, and unpublishing gives it back with the holder’s own token', async () => {
		const a = flow('Sync A', (await newKey()).apiKey);
		await a.activate();
		const aToken = await registeredToken();
		const z = flow('Sync Z', (await newKey()).apiKey, { parameters: { whenHeld: 'takeOver' } });
		await z.activate();
		expect(await pointsAt()).toBe(z.productionUrl);
		await z.deactivate();
		expect(await pointsAt()).toBe(a.productionUrl);
		expect(await registeredToken()).toBe(aToken);
	});

	test('organizations on one base URL (an agency) each keep their own holder', async () => {
		const a = flow('Acme sync', sandbox.orgs[0].apiKey);
		await a.activate();
		const g = flow('Globex sync', sandbox.orgs[1].apiKey);
		await g.activate();
		expect(await pointsAt('org_acme')).toBe(a.productionUrl);
		expect(await pointsAt('org_globex')).toBe(g.productionUrl);
	});

	test('two organizations without agents cannot be told apart: the second publish is refused and says why', async () => {
		const first = await admin.request<{ id: string }>('POST', '/__sandbox/orgs', { name: 'E1' });
		const second = await admin.request<{ id: string }>('POST', '/__sandbox/orgs', { name: 'E2' });
		const a = flow('Empty A', (await newKey(first.id)).apiKey);
		await a.activate();
		const z = flow('Empty Z', (await newKey(second.id)).apiKey, {
			parameters: { whenHeld: 'takeOver' },
		});
		await expect(z.activate()).rejects.toThrow(
			/may be held by the published workflow "Empty A".*cannot tell whether this credential's key reaches the same organization/,
		);
		expect(await pointsAt(first.id)).toBe(a.productionUrl);
		expect(await admin.accountWebhook(second.id)).toBeNull();
	});

	test('key rotation in one credential: a second workflow on it is still refused, and unpublishing the holder applies On Unpublish', async () => {
		const oldKey = await newKey();
		const a = flow('Sync A', oldKey.apiKey, {
			credentialId: 'shared',
			parameters: {
				onDeactivation: 'replacementUrl',
				replacementUrl: 'https://crm.example.com/voice',
			},
		});
		await a.activate();
		// docs/credentials.md: paste the new key into the credential, then revoke the old one.
		const rotated = await newKey();
		a.credential.apiKey = rotated.apiKey;
		await admin.request('POST', `/__sandbox/keys/${oldKey.id}/revoke`);
		const b = flow('Sync B', rotated.apiKey, { credentialId: 'shared' });
		await expect(b.activate()).rejects.toThrow(`held by the published workflow "Sync A"`);
		expect(await pointsAt()).toBe(a.productionUrl);
		await a.deactivate();
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/voice');
		// The claim went with the unpublish: B can publish now.
		await b.activate();
		expect(await pointsAt()).toBe(b.productionUrl);
	});
});

describe('Webhook Set while a published trigger holds the organization (issue 35.1)', () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	sandboxForEachBlock((started) => ({ sandbox, admin } = started));
	const pointsAt = (org = ORG) => webhookWithoutToken(admin, org);

	async function setWebhook(apiKey: string, parameters: Record<string, string> = {}) {
		return await runNode({
			parameters: {
				resource: 'webhook',
				operation: 'set',
				webhookUrl: 'https://crm.example.com/voice',
				...parameters,
			},
			credentials: { voiceAiApi: { baseUrl: sandbox.baseUrl, apiKey, authHeader: 'bearer' } },
		});
	}

	async function inserts(): Promise<number> {
		const log = await admin.request<{ method: string; path: string }[]>(
			'GET',
			`/__sandbox/requests?org=${ORG}`,
		);
		return log.filter((e) => e.method === 'POST' && e.path === '/webhook/insert-webhook').length;
	}

	/** "Sync A" published with the organization's first key, and a second key of the same organization. */
	async function publishedWithSecondKey() {
		const key2 = await admin.request<{ apiKey: string }>('POST', `/__sandbox/orgs/${ORG}/keys`, {});
		const a = new TriggerWorkflow({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
			name: 'Sync A',
		});
		await a.activate();
		return { key2, a };
	}

	test('by default it is refused, naming the holding workflow and what to do, and sends nothing', async () => {
		const { key2, a } = await publishedWithSecondKey();
		const before = await inserts();
		const result = await setWebhook(key2.apiKey);
		expect(result.error?.message).toContain(
			`held by the published workflow "Sync A" (ID ${a.workflowId})`,
		);
		expect(result.error?.message).toContain('"If a Published Trigger Holds It" to "Take It Over"');
		expect(await inserts()).toBe(before);
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test("the agent list that tells a second key's organization apart is read with the node's own retry settings", async () => {
		const { key2, a } = await publishedWithSecondKey();
		// Two failures: within the node's default Max Attempts (4), so the read succeeds and tells.
		await admin.request('POST', '/__sandbox/faults', {
			kind: 'status-500',
			method: 'GET',
			path: '/callback/standardCampaign',
			times: 2,
		});
		try {
			const result = await setWebhook(key2.apiKey);
			expect(result.error?.message).toContain('held by the published workflow "Sync A"');
		} finally {
			await admin.request('DELETE', '/__sandbox/faults');
		}
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test('with Take It Over it sets the URL; a test listen then gives it back to that URL, and re-publishing the holder takes it back', async () => {
		const a = new TriggerWorkflow({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
			name: 'Sync A',
		});
		await a.activate();
		const result = await setWebhook(sandbox.orgs[0].apiKey, { whenTriggerHolds: 'takeOver' });
		expect(result.error).toBeUndefined();
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/voice');
		const y = new TriggerWorkflow({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
			name: 'Draft',
		});
		await y.startTestListen();
		await y.endTestListen();
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/voice');
		// n8n asks checkExists when the holder is published again: it no longer holds, so it registers.
		expect(await a.activate('update')).toBe(true);
		expect(await pointsAt()).toBe(a.productionUrl);
	});

	test('a take-over whose registration fails leaves the URL Webhook Set gave standing: a test listen gives it back to that URL', async () => {
		const key = sandbox.orgs[0].apiKey;
		const a = new TriggerWorkflow({ baseUrl: sandbox.baseUrl, apiKey: key, name: 'Sync A' });
		await a.activate();
		expect((await setWebhook(key, { whenTriggerHolds: 'takeOver' })).error).toBeUndefined();
		const b = new TriggerWorkflow({
			baseUrl: sandbox.baseUrl,
			apiKey: key,
			name: 'Sync B',
			parameters: { whenHeld: 'takeOver' },
		});
		await admin.request('POST', '/__sandbox/faults', {
			kind: 'status-500',
			path: '/webhook/insert-webhook',
			times: 20,
		});
		try {
			await expect(b.activate()).rejects.toThrow();
		} finally {
			await admin.request('DELETE', '/__sandbox/faults');
		}
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/voice');
		const y = new TriggerWorkflow({ baseUrl: sandbox.baseUrl, apiKey: key, name: 'Draft' });
		await y.startTestListen();
		await y.endTestListen();
		expect(await admin.accountWebhook(ORG)).toBe('https://crm.example.com/voice');
	});

	test('in a process that has not seen the organization it is refused, even run by hand; Take It Over sets the URL', async () => {
		const refused = await setWebhook(sandbox.orgs[1].apiKey);
		expect(refused.error?.message).toMatch(/n8n cannot tell whether a published workflow receives/);
		expect(await admin.accountWebhook('org_globex')).not.toBe('https://crm.example.com/voice');
		const taken = await setWebhook(sandbox.orgs[1].apiKey, { whenTriggerHolds: 'takeOver' });
		expect(taken.error).toBeUndefined();
		expect(await admin.accountWebhook('org_globex')).toBe('https://crm.example.com/voice');
	});
});
