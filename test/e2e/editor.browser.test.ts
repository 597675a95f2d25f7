/**
 * The editor in a real browser (`npm run test:editor`): a real n8n with the packed package, Debian's
 * Chromium headless driven through playwright-core. Adds the trigger from the nodes panel (and records
 * where "sip", "phone", "call", "agent" and "chatbot" rank the package there), starts and stops a test
 * listen, opens every operation of the action node (one saved node per operation) and the trigger with
 * every field revealed (each collection holding all its options, each switch set to show what it gates),
 * checks each field is shown, that no parameter label is cut off at n8n's default panel width (measured in
 * the DOM: the label's text wider than what its boxes show, or an ellipsis) and that no notice is taller
 * than three lines, runs the credential test, and fails on any error thrown in the page. Screenshots of
 * the two nodes go to docs/images/. Run after `npm run build`; scripts/run.sh editor installs Chromium
 * when it is missing.
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
} from '../../harness/n8n';
import { SandboxAdmin } from '../../harness/sandboxAdmin';

const CHROMIUM = process.env.VOICEAI_CHROMIUM ?? '/usr/bin/chromium';
const IMAGES = join(REPO_ROOT, 'docs', 'images');
const SEARCH_TERMS = ['sip', 'phone', 'call', 'agent', 'chatbot'];

jest.setTimeout(600_000);

// The nodes' descriptions as n8n loads them from dist/ (what the editor receives).
const loadDescription = (node: string, exported: string): INodeTypeDescription => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const module = require(join(REPO_ROOT, 'dist', 'nodes', node, `${node}.node.js`)) as Record<
		string,
		new () => { description: INodeTypeDescription }
	>;
	return new module[exported]().description;
};
const description = loadDescription('VoiceAi', 'VoiceAi');
const triggerDescription = loadDescription('VoiceAiTrigger', 'VoiceAiTrigger');

type Parameters = Record<string, unknown>;

/** Whether n8n shows a field for these values (a leading `/` in displayOptions reads the node's top level). */
function displayed(property: INodeProperties, top: Parameters, local: Parameters = top): boolean {
	const valueOf = (name: string) => (name.startsWith('/') ? top[name.slice(1)] : local[name]);
	const { show = {}, hide = {} } = property.displayOptions ?? {};
	return (
		Object.entries(show).every(([name, values]) => (values as unknown[]).includes(valueOf(name))) &&
		!Object.entries(hide).some(([name, values]) => (values as unknown[]).includes(valueOf(name)))
	);
}

const nested = (property: INodeProperties): INodeProperties[] =>
	property.type === 'fixedCollection'
		? (property.options as Array<{ values: INodeProperties[] }>).flatMap((group) => group.values)
		: property.type === 'collection'
			? (property.options as INodeProperties[])
			: [];

/**
 * Parameters under which n8n shows every field of a node (or of one of its operations, fixed by
 * `fixed`): each switch a field depends on takes the first value that shows it, each collection holds
 * all its options and each fixedCollection every group, at their defaults.
 */
function revealingParameters(properties: INodeProperties[], fixed: Parameters): Parameters {
	const fixedOnly = (property: INodeProperties) =>
		Object.entries(property.displayOptions?.show ?? {})
			.filter(([name]) => name in fixed)
			.every(([name, values]) => (values as unknown[]).includes(fixed[name]));
	const relevant = properties.filter(fixedOnly);
	const parameters: Parameters = { ...fixed };
	for (const property of relevant.flatMap((p) => [p, ...nested(p)])) {
		for (const [name, values] of Object.entries(property.displayOptions?.show ?? {})) {
			const key = name.replace(/^\//, '');
			if (!(key in parameters)) parameters[key] = (values as unknown[])[0];
		}
	}
	for (const property of relevant) {
		if (property.name in parameters) continue;
		if (property.type === 'collection')
			parameters[property.name] = Object.fromEntries(
				(property.options as INodeProperties[]).map((option) => [option.name, option.default]),
			);
		if (property.type === 'fixedCollection') {
			const groups = property.options as Array<{ name: string; values: INodeProperties[] }>;
			parameters[property.name] = Object.fromEntries(
				groups.map((group) => {
					const values = Object.fromEntries(group.values.map((v) => [v.name, v.default]));
					return [group.name, property.typeOptions?.multipleValues ? [values] : values];
				}),
			);
		}
	}
	return parameters;
}

/** The labels n8n shows for these parameters: top-level fields, collection options, fixedCollection groups and their fields. */
function labelsShown(properties: INodeProperties[], parameters: Parameters): string[] {
	const values: Parameters = {
		...Object.fromEntries(properties.map((p) => [p.name, p.default])),
		...parameters,
	};
	const labels: string[] = [];
	for (const property of properties) {
		// n8n shows a node's main authentication field through its credential selector, not as a field.
		if (['resource', 'operation', 'authentication'].includes(property.name)) continue;
		if (['notice', 'hidden'].includes(property.type) || !displayed(property, values)) continue;
		labels.push(property.displayName);
		if (property.type === 'collection')
			labels.push(...(property.options as INodeProperties[]).map((option) => option.displayName));
		if (property.type === 'fixedCollection')
			for (const group of property.options as Array<{
				displayName: string;
				values: INodeProperties[];
			}>) {
				labels.push(group.displayName);
				for (const field of group.values)
					if (field.type !== 'notice' && displayed(field, values, {}))
						labels.push(field.displayName);
			}
	}
	return [...new Set(labels)];
}

interface Operation {
	resource: string;
	operation: string;
	action: string;
	parameters: Parameters;
	fields: string[];
}

/** Every operation with its action text, the parameters that reveal all its fields, and their labels. */
function operations(): Operation[] {
	const list: Operation[] = [];
	for (const selector of description.properties.filter((p) => p.name === 'operation')) {
		const resource = String(selector.displayOptions?.show?.resource?.[0]);
		for (const option of selector.options as Array<{ value: string; action: string }>) {
			const parameters = revealingParameters(description.properties, {
				resource,
				operation: option.value,
			});
			const fields = labelsShown(description.properties, parameters);
			list.push({ resource, operation: option.value, action: option.action, parameters, fields });
		}
	}
	return list;
}

interface LabelCut {
	label: string;
	/** Width of the label's text, in CSS pixels. */
	textWidth: number;
	/** Width of it the label's boxes show. */
	shownWidth: number;
}

interface NoticeSize {
	text: string;
	lines: number;
	heightPx: number;
}

interface PanelLayout {
	panelWidth: number;
	labels: number;
	/** The label with the least room to spare in its row (logged, to show how close the panel is to cutting one). */
	tightest?: { label: string; textWidth: number; roomWidth: number };
	cut: LabelCut[];
	notices: NoticeSize[];
}

// The few DOM shapes measurePanel uses (the test program is compiled without the DOM library).
interface Box {
	left: number;
	right: number;
	top: number;
	width: number;
	height: number;
}
interface PageElement {
	textContent: string | null;
	parentElement: PageElement | null;
	offsetParent: unknown;
	scrollWidth: number;
	clientWidth: number;
	querySelector(selector: string): PageElement | null;
	querySelectorAll(selector: string): ArrayLike<PageElement>;
	getBoundingClientRect(): Box;
}
interface PageGlobals {
	document: {
		createRange(): {
			selectNodeContents(node: PageElement): void;
			getBoundingClientRect(): Box;
			getClientRects(): ArrayLike<Box>;
		};
	};
	getComputedStyle(
		element: PageElement,
	): Record<'overflowX' | 'borderRightWidth' | 'lineHeight' | 'fontSize', string>;
}

/**
 * Runs in the page on the open NDV. A label is cut when its text reaches past the right edge of any box
 * around it that clips (overflow other than visible), when a box of it scrolls wider than it shows
 * (what text-overflow: ellipsis hides) or when its text itself ends in an ellipsis. A notice's lines are
 * the distinct line boxes of its text.
 */
function measurePanel(root: PageElement): PanelLayout {
	const { document, getComputedStyle } = globalThis as unknown as PageGlobals;
	const cut: LabelCut[] = [];
	let tightest: PanelLayout['tightest'];
	let labels = 0;
	for (const label of Array.from(root.querySelectorAll('[data-test-id="input-label"] label'))) {
		if (label.offsetParent === null) continue;
		const title = label.querySelector('[class*="title"]') ?? label;
		const text = (title.textContent ?? '').replace(/\s+/g, ' ').trim();
		if (text === '') continue;
		labels++;
		const range = document.createRange();
		range.selectNodeContents(title);
		const textBox = range.getBoundingClientRect();
		// The boxes that can hide part of the text: the label's own (n8n clips a span inside it) and those around it.
		const inside = [title, ...Array.from(title.querySelectorAll('*'))];
		const boxes = [...inside];
		for (let box = title.parentElement; box && box !== root; box = box.parentElement)
			boxes.push(box);
		let shownRight = Infinity;
		for (const box of boxes) {
			const style = getComputedStyle(box);
			if (style.overflowX !== 'visible')
				shownRight = Math.min(
					shownRight,
					box.getBoundingClientRect().right - parseFloat(style.borderRightWidth),
				);
		}
		const scrolls = inside.some(
			(box) => box.scrollWidth > box.clientWidth + 1 && box.clientWidth > 0,
		);
		const fit = {
			label: text,
			textWidth: Math.round(textBox.width),
			shownWidth: Math.round(Math.min(textBox.right, shownRight) - textBox.left),
		};
		// The row part the label's title may grow into (n8n's flex "main content" of the label).
		const roomWidth = Math.round(
			(title.parentElement ?? title).getBoundingClientRect().right - textBox.left,
		);
		if (!tightest || roomWidth - fit.textWidth < tightest.roomWidth - tightest.textWidth)
			tightest = { label: text, textWidth: fit.textWidth, roomWidth };
		if (textBox.right > shownRight + 1 || scrolls || /(…|\.\.\.)$/.test(text)) cut.push(fit);
	}
	const notices: NoticeSize[] = [];
	for (const notice of Array.from(root.querySelectorAll('.notice'))) {
		if (notice.offsetParent === null) continue;
		const content = notice.querySelector('.notice-content') ?? notice;
		const style = getComputedStyle(content);
		const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
		const range = document.createRange();
		range.selectNodeContents(content);
		const tops = Array.from(range.getClientRects())
			.filter((rect) => rect.width > 0 && rect.height > 0)
			.map((rect) => rect.top)
			.sort((a, b) => a - b);
		let lines = 0;
		let lineTop = -Infinity;
		for (const top of tops)
			if (top - lineTop > lineHeight / 2) {
				lines++;
				lineTop = top;
			}
		notices.push({
			text: (content.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 70),
			lines,
			heightPx: Math.round(content.getBoundingClientRect().height),
		});
	}
	const panel = root.querySelector('[data-test-id="node-parameters"]');
	return {
		panelWidth: Math.round(panel?.getBoundingClientRect().width ?? 0),
		labels,
		tightest,
		cut,
		notices,
	};
}

const MAX_NOTICE_LINES = 3;

const triggerLabel = (name: string): string => {
	const property = triggerDescription.properties.find((p) => p.name === name);
	if (!property) throw new Error(`the trigger has no parameter ${name}`);
	return property.displayName;
};
const listenAnyway = (
	triggerDescription.properties.find((p) => p.name === 'whenOwnerUnknown')?.options as Array<{
		name: string;
		value: string;
	}>
).find((option) => option.value === 'listen')!.name;

/** What fails the layout check in one open panel: labels cut off, notices over three lines. */
const layoutFaults = (where: string, layout: PanelLayout) => ({
	where,
	cutLabels: layout.cut,
	tallNotices: layout.notices.filter((notice) => notice.lines > MAX_NOTICE_LINES),
});

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
		for (const label of ['output', 'whenHeld', 'whenOwnerUnknown', 'onDeactivation'].map(
			triggerLabel,
		)) {
			await ndv
				.getByText(label, { exact: true })
				.first()
				.waitFor({ state: 'visible', timeout: 60_000 });
		}
		await page.screenshot({ path: join(IMAGES, 'voice-ai-trigger.png') });

		// A fresh n8n has seen no holder of the account: the test listen is refused unless the user says none holds it.
		await ndv.locator('[data-test-id="parameter-input-whenOwnerUnknown"]').click();
		await page.getByRole('option').filter({ hasText: listenAnyway }).first().click();
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
					parameters: op.parameters,
					credentials: { voiceAiApi: credential },
				})),
				connections: {},
			},
			{ voiceAiApi: credential },
		);
		await page.goto(`${n8n.baseUrl}/workflow/${saved.id}`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="zoom-to-fit"]').click();
		const ndv = page.locator('[data-test-id="ndv"]');
		const faults: Array<ReturnType<typeof layoutFaults>> = [];
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
			const layout = await ndv.evaluate(measurePanel);
			console.log(`${names[index]}: ${JSON.stringify(layout)}`);
			expect(layout.labels).toBeGreaterThanOrEqual(op.fields.length);
			faults.push(layoutFaults(names[index], layout));
			if (op.resource === 'chatbot' && op.operation === 'update')
				await page.screenshot({ path: join(IMAGES, 'voice-ai-node.png') });
			await closeNdv();
		}
		// Every operation is measured before this fails, so one run names every label and notice at fault.
		expect(faults.filter((f) => f.cutLabels.length + f.tallNotices.length > 0)).toEqual([]);
	});

	// Each way of receiving (Receive From) shows its own fields and notices.
	it.each(['accountWebhook', 'chatbotWebhookUrl'])(
		'shows every field of the trigger uncut, and its notices in at most three lines (Receive From: %s)',
		async (receiveFrom) => {
			const parameters = revealingParameters(triggerDescription.properties, { receiveFrom });
			const fields = labelsShown(triggerDescription.properties, parameters);
			const values: Parameters = {
				...Object.fromEntries(triggerDescription.properties.map((p) => [p.name, p.default])),
				...parameters,
			};
			const saved = await api.importWorkflow(
				{
					name: `Trigger with every field (${receiveFrom})`,
					nodes: [
						{
							id: 'trigger',
							name: 'Voice AI Trigger',
							type: 'n8n-nodes-voiceai.voiceAiTrigger',
							typeVersion: 1,
							position: [0, 0],
							webhookId: `editor-check-${receiveFrom}`,
							parameters,
							credentials: { voiceAiApi: credential },
						},
					],
					connections: {},
				},
				{ voiceAiApi: credential },
			);
			await page.goto(`${n8n.baseUrl}/workflow/${saved.id}`, { waitUntil: 'domcontentloaded' });
			await page.locator('[data-test-id="canvas-node"]').first().dblclick();
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.waitFor();
			const missing: string[] = [];
			for (const field of fields) {
				if (!(await ndv.getByText(field, { exact: true }).first().isVisible())) missing.push(field);
			}
			expect(missing).toEqual([]);
			const layout = await ndv.evaluate(measurePanel);
			console.log(`trigger (${receiveFrom}): ${JSON.stringify(layout)}`);
			expect(layout.labels).toBeGreaterThanOrEqual(fields.length);
			expect(layout.notices.length).toBeGreaterThanOrEqual(
				triggerDescription.properties.filter((p) => p.type === 'notice' && displayed(p, values))
					.length,
			);
			await closeNdv();
			expect(layoutFaults('trigger', layout)).toEqual({
				where: 'trigger',
				cutLabels: [],
				tallNotices: [],
			});
		},
	);

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
