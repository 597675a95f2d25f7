/**
 * One account, one webhook: which workflow the account's webhook points at through publish, unpublish,
 * test listens, take-overs and restarts. First the ownership module on its own, then several trigger
 * workflows of one n8n process driven through n8n-core's HookContext against the sandbox (./n8n.ts).
 */
import { SandboxAdmin } from '../support/sandboxAdmin';
import { startSandbox, type Sandbox } from '../../sandbox';
import {
	accountKey,
	claim,
	type Claim,
	forgetAllAccounts,
	giveBack,
	holderOf,
	lend,
	release,
} from '../../nodes/VoiceAiTrigger/ownership';
import { TriggerWorkflow } from '../support/triggerWorkflow';

describe('the ownership module', () => {
	const key = accountKey('https://api.example.com', 'ct_key');
	const at = (id: string, claimedAt: number): Claim => ({
		id,
		workflowId: id,
		workflowName: `Flow ${id}`,
		productionUrl: `https://n8n.example.com/webhook/${id}/webhook`,
		claimedAt,
	});
	const plain = { takeOver: false, restoring: false };

	beforeEach(() => forgetAllAccounts());

	test('keys accounts by base URL and key, and never holds the key itself', () => {
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(key).not.toContain('ct_key');
		expect(accountKey('https://api.example.com', 'ct_other')).not.toBe(key);
		expect(accountKey('https://eu.example.com', 'ct_key')).not.toBe(key);
	});

	test('the first claim holds; a second is refused naming the holder; a take-over stacks and unwinds', () => {
		expect(claim(key, at('A', 1), plain)).toEqual({ outcome: 'register' });
		expect(claim(key, at('B', 2), plain)).toEqual({
			outcome: 'refused',
			holder: expect.objectContaining({ workflowName: 'Flow A' }),
		});
		expect(holderOf(key)?.id).toBe('A');
		expect(claim(key, at('B', 2), { takeOver: true, restoring: false })).toEqual({
			outcome: 'register',
		});
		expect(release(key, 'B')).toEqual({
			outcome: 'handOver',
			next: expect.objectContaining({ id: 'A' }),
		});
		expect(release(key, 'A')).toEqual({ outcome: 'lastOut' });
		expect(release(key, 'A')).toEqual({ outcome: 'none' });
	});

	test('releasing a claim that does not hold the account changes nothing', () => {
		claim(key, at('A', 1), plain);
		claim(key, at('B', 2), { takeOver: true, restoring: false });
		expect(release(key, 'A')).toEqual({ outcome: 'none' });
		expect(holderOf(key)?.id).toBe('B');
	});

	test('a claim made again (re-publish) keeps its place and registers only if it holds', () => {
		claim(key, at('A', 1), plain);
		claim(key, at('B', 2), { takeOver: true, restoring: false });
		expect(claim(key, at('A', 1), plain)).toEqual({ outcome: 'wait' });
		expect(claim(key, at('B', 2), plain)).toEqual({ outcome: 'register' });
	});

	test('restoring after a restart, in any order, ends with the latest claim holding', () => {
		const restoring = { takeOver: false, restoring: true };
		expect(claim(key, at('B', 2), restoring)).toEqual({ outcome: 'register' });
		expect(claim(key, at('A', 1), restoring)).toEqual({ outcome: 'wait' });
		expect(holderOf(key)?.id).toBe('B');
	});

	test('a test listen borrows the account and gives it back to whoever holds it when it ends', () => {
		expect(lend(key, 'Y/test')).toBeUndefined();
		expect(claim(key, at('A', 1), plain)).toEqual({ outcome: 'wait' }); // published during the test: registered when it ends
		expect(giveBack(key, 'Y/test')?.id).toBe('A');
		expect(giveBack(key, 'Y/test')).toBeUndefined();
	});

	test('unpublishing the holder during a test listen leaves the hand-back to the end of the test', () => {
		claim(key, at('A', 1), plain);
		claim(key, at('B', 2), { takeOver: true, restoring: false });
		lend(key, 'Y/test');
		expect(release(key, 'B')).toEqual({ outcome: 'none' });
		expect(giveBack(key, 'Y/test')?.id).toBe('A');
	});
});

describe('several workflows of one n8n process, one account', () => {
	const ORG = 'org_acme';
	let sandbox: Sandbox;
	let admin: SandboxAdmin;

	beforeAll(async () => {
		sandbox = await startSandbox();
		admin = new SandboxAdmin(sandbox);
	});
	afterAll(async () => {
		await sandbox.close();
	});
	// Each test is a freshly started n8n process.
	beforeEach(() => forgetAllAccounts());

	function flow(name: string, parameters = {}): TriggerWorkflow {
		return new TriggerWorkflow({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
			parameters,
			name,
		});
	}

	async function pointsAt(): Promise<string> {
		const url = new URL((await admin.accountWebhook(ORG))!);
		url.searchParams.delete('token');
		return url.toString();
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
		a.stopProcess();
		b.stopProcess();
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
