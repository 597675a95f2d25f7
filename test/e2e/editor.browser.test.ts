/**
 * The editor in a real browser (`npm run test:editor`): a real n8n with the packed package, Debian's
 * Chromium headless driven through playwright-core. Adds the trigger from the nodes panel (and records
 * where "sip", "phone", "call", "agent" and "chatbot" rank the package there), starts and stops a test
 * listen, opens every operation of the action node (one saved node per operation) and checks each of its
 * fields is shown, runs the credential test, and fails on any error thrown in the page. Screenshots of the two nodes go to
 * docs/images/. Run after `npm run build`; scripts/run.sh editor installs Chromium when it is missing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { type Browser, chromium, type Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../../sandbox';
import {
	N8nApi,
	REPO_ROOT,
	type CredentialRef,
	type N8nProcess,
	pollUntil,
	startN8n,
} from '../support/n8n';
import { SandboxAdmin } from '../support/sandboxAdmin';

const CHROMIUM = process.env.VOICEAI_CHROMIUM ?? '/usr/bin/chromium';
const IMAGES = join(REPO_ROOT, 'docs', 'images');
const SEARCH_TERMS = ['sip', 'phone', 'call', 'agent', 'chatbot'];

jest.setTimeout(600_000);

// The action node's description as n8n loads it from dist/ (what the editor receives).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { VoiceAi } = require(join(REPO_ROOT, 'dist', 'nodes', 'VoiceAi', 'VoiceAi.node.js')) as {
	VoiceAi: new () => { description: INodeTypeDescription };
};
const description = new VoiceAi().description;

interface Operation {
	resource: string;
	operation: string;
	action: string;
	fields: string[];
}

/** Every operation with its action text and the fields shown by default (top level, not hidden by a default). */
function operations(): Operation[] {
	const defaults: Record<string, unknown> = Object.fromEntries(
		description.properties.map((p) => [p.name, p.default]),
	);
	const shown = (property: INodeProperties, resource: string, operation: string) =>
		Object.entries(property.displayOptions?.show ?? {}).every(([name, values]) => {
			const value =
				name === 'resource' ? resource : name === 'operation' ? operation : defaults[name];
			return (values as unknown[]).includes(value);
		}) &&
		!Object.entries(property.displayOptions?.hide ?? {}).some(([name, values]) =>
			(values as unknown[]).includes(defaults[name]),
		);
	const list: Operation[] = [];
	for (const selector of description.properties.filter((p) => p.name === 'operation')) {
		const resource = String(selector.displayOptions?.show?.resource?.[0]);
		for (const option of selector.options as Array<{ value: string; action: string }>) {
			const fields = description.properties
				.filter(
					(p) =>
						!['resource', 'operation'].includes(p.name) &&
						p.type !== 'notice' &&
						p.type !== 'hidden',
				)
				.filter((p) => p.displayOptions && shown(p, resource, option.value))
				.map((p) => p.displayName);
			list.push({ resource, operation: option.value, action: option.action, fields });
		}
	}
	return list;
}

/** Debian's Chromium with the flags the project uses, a fresh profile, driven over CDP. */
async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
	const profile = mkdtempSync(join(tmpdir(), 'voiceai-chromium-'));
	const flags = [
		'--headless',
		'--no-sandbox',
		'--disable-gpu',
		'--disable-quic',
		'--no-first-run',
		'--disable-background-networking',
		'--disable-component-update',
		'--disable-sync',
	];
	const proc: ChildProcess = spawn(
		CHROMIUM,
		[
			...flags,
			`--user-data-dir=${profile}`,
			'--remote-debugging-port=0',
			'--window-size=1600,1000',
			'about:blank',
		],
		{
			stdio: ['ignore', 'ignore', 'pipe'],
		},
	);
	const endpoint = await new Promise<string>((resolve, reject) => {
		let seen = '';
		proc.stderr!.on('data', (chunk: Buffer) => {
			seen += chunk.toString();
			const match = /DevTools listening on (ws:\S+)/.exec(seen);
			if (match) resolve(match[1]);
		});
		proc.once('exit', (code) =>
			reject(new Error(`chromium exited (${code}) before it listened:\n${seen.slice(-2000)}`)),
		);
	});
	const browser = await chromium.connectOverCDP(endpoint);
	return {
		browser,
		async close() {
			await browser.close().catch(() => undefined);
			const exited = new Promise((resolve) =>
				proc.exitCode === null ? proc.once('exit', resolve) : resolve(undefined),
			);
			proc.kill('SIGKILL');
			await exited;
			rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
		},
	};
}

describe('the editor in a real browser', () => {
	let sandbox: Sandbox;
	let n8n: N8nProcess;
	let api: N8nApi;
	let credential: CredentialRef;
	let chrome: Awaited<ReturnType<typeof launchChromium>>;
	let page: Page;
	const pageErrors: string[] = [];
	const started = Date.now();

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, deliveryRetry: { attempts: 1 } });
		n8n = await startN8n({ readyTimeoutMs: 300_000 });
		api = await N8nApi.setupOwner(n8n.baseUrl);
		credential = await api.createVoiceAiCredential({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
		});
		chrome = await launchChromium();
		page = await chrome.browser.contexts()[0].newPage();
		await page.setViewportSize({ width: 1600, height: 1000 });
		// The editor loads a few MB of scripts; on a busy 2-core machine that can take a while.
		page.setDefaultTimeout(60_000);
		page.setDefaultNavigationTimeout(120_000);
		page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
		mkdirSync(IMAGES, { recursive: true });

		await page.goto(`${n8n.baseUrl}/signin`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(api.owner.email);
		await page.locator('[data-test-id="password"] input').fill(api.owner.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL(/\/home\//, { timeout: 60_000 });
	});

	afterAll(async () => {
		await chrome?.close();
		await n8n?.close();
		await sandbox?.close();
		console.log(`editor check took ${((Date.now() - started) / 1000).toFixed(0)} s`);
	});

	afterEach(() => {
		// Any error thrown in the page fails the step that caused it.
		expect(pageErrors.splice(0)).toEqual([]);
	});

	const searchPanel = async (term: string) => {
		const bar = page.locator('[data-test-id="node-creator-search-bar"]');
		await bar.fill(term);
		await page.waitForTimeout(300);
		return await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
	};

	const closeNdv = async () => {
		await page.keyboard.press('Escape');
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
	};

	it('adds the trigger from the nodes panel and starts and stops a test listen', async () => {
		page.on('dialog', (dialog) => void dialog.accept());
		await page.goto(`${n8n.baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="canvas-add-button"]').click();
		const ranks = Object.fromEntries(
			await SEARCH_TERMS.reduce(
				async (acc, term) => [
					...(await acc),
					[term, (await searchPanel(term)).indexOf('Voice AI') + 1] as const,
				],
				Promise.resolve([] as Array<readonly [string, number]>),
			),
		);
		console.log('position of Voice AI in the nodes panel (trigger view):', JSON.stringify(ranks));
		expect(Object.values(ranks).every((rank) => rank >= 1)).toBe(true);

		await searchPanel('Voice AI');
		await page
			.locator('[data-test-id="node-creator-item-name"]', { hasText: 'Voice AI' })
			.first()
			.click();
		await page.getByText('On new Voice AI event').click();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.waitFor();
		for (const label of [
			'Output',
			'If Another Workflow Holds the Account',
			'Test Listen When the Holder Is Unknown',
			'On Unpublish',
		]) {
			await ndv
				.getByText(label, { exact: true })
				.first()
				.waitFor({ state: 'visible', timeout: 60_000 });
		}
		await page.screenshot({ path: join(IMAGES, 'voice-ai-trigger.png') });

		// A fresh n8n has seen no holder of the account: the test listen is refused unless the user says none holds it.
		await ndv.locator('[data-test-id="parameter-input-whenOwnerUnknown"]').click();
		await page.getByRole('option').filter({ hasText: 'Listen Anyway' }).first().click();
		const admin = new SandboxAdmin(sandbox);
		expect(await admin.accountWebhook('org_acme')).toBeNull();
		// n8n 2.40 labels the trigger's test button "Execute step"; while it listens the button says "Stop listening".
		const button = ndv.locator('[data-test-id="trigger-execute-button"]');
		await ndv.locator('[data-test-id="node-execute-button"]').first().click();
		const testUrl = await pollUntil(
			async () => {
				const url = await admin.accountWebhook('org_acme');
				return url?.includes('/webhook-test/') ? url : undefined;
			},
			{ timeoutMs: 60_000, what: 'the test URL at the account' },
		);
		expect(testUrl).toMatch(/\/webhook-test\/.+\?token=/);
		expect(await button.innerText()).toMatch(/Stop listening/i);
		await button.click();
		await pollUntil(
			async () =>
				/Stop listening/i.test(await button.innerText().catch(() => '')) ? undefined : true,
			{
				timeoutMs: 60_000,
				what: 'the test listen to stop',
			},
		);
		await closeNdv();
	});

	it('opens every operation of the action node and shows each of its fields', async () => {
		const ops = operations();
		expect(ops.length).toBeGreaterThanOrEqual(9);
		// One node per operation, saved through the REST API as the editor saves them, then opened one by one.
		const names = ops.map((op) => `${op.resource} ${op.operation}`);
		const saved = await api.importWorkflow(
			{
				name: 'Every operation',
				nodes: ops.map((op, index) => ({
					id: `op-${index}`,
					name: names[index],
					type: 'n8n-nodes-voiceai.voiceAi',
					typeVersion: 1,
					position: [(index % 5) * 260, Math.floor(index / 5) * 260],
					parameters: { resource: op.resource, operation: op.operation },
					credentials: { voiceAiApi: credential },
				})),
				connections: {},
			},
			{ voiceAiApi: credential },
		);
		await page.goto(`${n8n.baseUrl}/workflow/${saved.id}`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="zoom-to-fit"]').click();
		const ndv = page.locator('[data-test-id="ndv"]');
		for (const [index, op] of ops.entries()) {
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: names[index] })
				.first()
				.dblclick();
			await ndv.waitFor();
			const missing: string[] = [];
			for (const field of op.fields) {
				if (!(await ndv.getByText(field, { exact: true }).first().isVisible())) missing.push(field);
			}
			expect({ operation: names[index], missing }).toEqual({
				operation: names[index],
				missing: [],
			});
			if (op.resource === 'chatbot' && op.operation === 'update')
				await page.screenshot({ path: join(IMAGES, 'voice-ai-node.png') });
			await closeNdv();
		}
	});

	it('runs the credential test from the credential dialog', async () => {
		await page.goto(`${n8n.baseUrl}/home/credentials/${credential.id}`, {
			waitUntil: 'domcontentloaded',
		});
		const dialog = page.getByRole('dialog');
		await dialog
			.getByRole('button', { name: /retry|test/i })
			.first()
			.click()
			.catch(() => undefined);
		await dialog
			.getByText(/Connection tested successfully/i)
			.waitFor({ state: 'visible', timeout: 30_000 });
		const requests = await new SandboxAdmin(sandbox).request<
			Array<{ path: string; status: number }>
		>('GET', '/__sandbox/requests?org=org_acme');
		expect(
			requests.filter((r) => r.path === '/contacts/list-names').map((r) => r.status),
		).toContain(200);
	});
});
