/**
 * The editor in a real browser (`npm run test:editor`): a real n8n with the packed package, Debian's
 * Chromium headless driven through playwright-core, on the n8n line of VOICEAI_N8N_DIR (scripts/run.sh
 * runs it on each line whose `editor` is true in scripts/n8n-lines.json). Each describe starts its own
 * fresh n8n and sandbox.
 *
 * 1. A newcomer's first workflow, the README's "First workflow" steps as a user clicks them: the Voice AI
 *    API credential created from Credentials, examples/crm-sync.json imported through Import from File
 *    (the file's bytes), the credential in each Voice AI node, Execute workflow with a simulated
 *    conversation (every node runs, the sample item shows), Publish (1.x: the Active switch) and the next
 *    conversation's run in Executions, succeeded.
 * 2. The nodes: adds the trigger from the nodes panel (and records where "sip", "phone", "call", "agent"
 *    and "chatbot" rank the package there); publishes it with every default, which is refused with the way
 *    out in the toast (what the editor shows then is logged), takes that way out; starts and stops a test
 *    listen; opens every operation of the action node (one saved node per operation) and the trigger
 *    with every field revealed (each collection holding all its options, each switch set to show what it
 *    gates), checks each field is shown, that no parameter label is cut off at n8n's default panel width
 *    (measured in the DOM: the label's text wider than what its boxes show, or an ellipsis) and that no
 *    notice is taller than three lines; runs the credential test. Fails on any error thrown in the page.
 *
 * Every screenshot is taken after the texts it is about are visible, and checked to be a PNG of some
 * substance: .tmp/editor-screenshots/<n8n version>/. The primary line also writes the README's two images
 * (docs/images/). Run after `npm run build`; scripts/run.sh editor installs Chromium when it is missing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { type Browser, chromium, type Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../../sandbox';
import {
	N8N_LINES,
	N8nApi,
	NODE_TYPES,
	REPO_ROOT,
	type CredentialRef,
	type N8nProcess,
	n8nVersion,
	pollUntil,
	startN8n,
	type WorkflowJson,
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

// At n8n 2.x's default panel width (419 px); n8n 1.x's panel is 388 px, where such a notice takes four.
const MAX_NOTICE_LINES = n8nVersion().startsWith('1.') ? 4 : 3;

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

const VERSION = n8nVersion();
/** n8n 1.x says Activate / Active and "Back to canvas"; 2.x says Publish / Published and closes panels with ×. */
const LINE_1 = VERSION.startsWith('1.');

/**
 * An error n8n's own editor throws whatever the package: n8n 1.123's version check reads settings that
 * are absent when version notifications are off (the harness turns them off), at every sign-in.
 */
const n8nOwnError = (text: string) =>
	LINE_1 && /reading 'enabled'/.test(text) && /checkForNewVersions/.test(text);

/** One fresh n8n (every default the harness keeps), its sandbox, an owner, and a signed-in page of its own. */
interface EditorSession {
	sandbox: Sandbox;
	admin: SandboxAdmin;
	n8n: N8nProcess;
	api: N8nApi;
	page: Page;
	/** Errors thrown in the page since the last look. */
	pageErrors: string[];
	close(): Promise<void>;
}

async function openEditor(): Promise<EditorSession> {
	const [sandbox, n8n] = await Promise.all([
		startSandbox({ port: 0, deliveryRetry: { attempts: 1 } }),
		startN8n({ readyTimeoutMs: 300_000 }),
	]);
	const api = await N8nApi.setupOwner(n8n.baseUrl);
	const context = await chrome.browser.newContext({ viewport: { width: 1600, height: 1000 } });
	const page = await context.newPage();
	// The editor loads a few MB of scripts; on a busy 2-core machine that can take a while.
	page.setDefaultTimeout(60_000);
	page.setDefaultNavigationTimeout(120_000);
	const pageErrors: string[] = [];
	page.on('pageerror', (error) => {
		const text = error.stack ?? error.message;
		if (!n8nOwnError(text)) pageErrors.push(text);
	});
	page.on('dialog', (dialog) => void dialog.accept());
	await page.goto(`${n8n.baseUrl}/signin`, { waitUntil: 'domcontentloaded' });
	await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(api.owner.email);
	await page.locator('[data-test-id="password"] input').fill(api.owner.password);
	await page.locator('[data-test-id="form-submit-button"]').click();
	await page.waitForURL(/\/home\//, { timeout: 60_000 });
	return {
		sandbox,
		admin: new SandboxAdmin(sandbox),
		n8n,
		api,
		page,
		pageErrors,
		async close() {
			await context.close().catch(() => undefined);
			await Promise.allSettled([n8n.close(), sandbox.close()]);
		},
	};
}

const SHOTS = join(REPO_ROOT, '.tmp', 'editor-screenshots', VERSION);
/** Only the primary line writes the README's images; every line's screenshots go to SHOTS. */
const IMAGES_HERE = VERSION === N8N_LINES.primary ? IMAGES : SHOTS;
const shotsTaken: string[] = [];

/**
 * A screenshot of a step, after checking that the page shows what the step is about: each text in
 * `shows` visible. The file must be a PNG of some substance (a blank or failed capture of this
 * viewport is a few KB).
 */
async function screenshot(page: Page, file: string, shows: Array<string | RegExp>): Promise<void> {
	for (const text of shows)
		await page.getByText(text).filter({ visible: true }).first().waitFor({ state: 'visible' });
	await page.screenshot({ path: file });
	const bytes = readFileSync(file);
	expect(bytes.subarray(1, 4).toString()).toBe('PNG');
	expect(bytes.length).toBeGreaterThan(30_000);
	shotsTaken.push(file);
}

let chrome: Awaited<ReturnType<typeof launchChromium>>;
const fileStarted = Date.now();

beforeAll(async () => {
	rmSync(SHOTS, { recursive: true, force: true });
	mkdirSync(SHOTS, { recursive: true });
	mkdirSync(IMAGES, { recursive: true });
	chrome = await launchChromium();
});

afterAll(async () => {
	await chrome?.close();
	console.log(
		`editor check on n8n ${VERSION} took ${((Date.now() - fileStarted) / 1000).toFixed(0)} s; screenshots:\n${shotsTaken.join('\n')}`,
	);
});

/** The texts of n8n's toasts on the page now. */
const toasts = async (page: Page) =>
	(await page.locator('.el-notification').allInnerTexts()).map((t) =>
		t.replace(/\s+/g, ' ').trim(),
	);

const closeToasts = async (page: Page) => {
	for (const close of await page.locator('.el-notification__closeBtn').all())
		await close.click().catch(() => undefined);
};

/** Whether the production (published) URL of this workflow's trigger is the account's webhook now. */
const productionUrlAtAccount = async (session: EditorSession, workflowId: string) => {
	const url = await session.admin.accountWebhook('org_acme');
	const saved = await session.api.getWorkflow(workflowId);
	const trigger = saved.nodes.find((n) => n.type === NODE_TYPES.trigger);
	return url?.includes(`/webhook/${trigger?.webhookId}/`) ? url : undefined;
};

const workflowIdOf = (page: Page) => {
	const match = /\/workflow\/([^/?#]+)/.exec(page.url());
	if (!match || match[1] === 'new') throw new Error(`no saved workflow at ${page.url()}`);
	return match[1];
};

/** What n8n's editor calls the steps of the README, per line. */
const ui = {
	executeTriggerButton: '[data-test-id="node-execute-button"]',
	async importFromFile(page: Page, file: string) {
		await page
			.locator('span[data-test-id="workflow-menu"], [data-test-id="workflow-menu"]')
			.first()
			.click();
		if (!LINE_1) await page.locator('[data-test-id="workflow-menu-item-import"]').hover();
		const [chooser] = await Promise.all([
			page.waitForEvent('filechooser'),
			page.locator('[data-test-id="workflow-menu-item-import-from-file"]').click(),
		]);
		await chooser.setFiles(file);
	},
	/** The node's panel: closed by its × (2.x) or "Back to canvas" (1.x). */
	async closeNdv(page: Page) {
		await page
			.locator(LINE_1 ? '[data-test-id="back-to-canvas"]' : '[data-test-id="ndv-close-button"]')
			.click();
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
	},
	/** Ctrl+S, as a user saves (2.x also saves by itself); then the workflow has an ID in the address. */
	async save(page: Page) {
		await page.keyboard.press('Control+s');
		await pollUntil(() => /\/workflow\/(?!new)[^/?#]+/.test(page.url()), {
			what: 'the workflow saved',
		});
	},
	/** Publish (2.x) or Activate (1.x) from the header, as a user does. */
	async publish(page: Page) {
		if (LINE_1) {
			await page.locator('[data-test-id="workflow-activate-switch"]').click();
			return;
		}
		await page.locator('[data-test-id="workflow-open-publish-modal-button"]').click();
		await page.locator('[data-test-id="workflow-publish-button"]').click();
	},
	/** The dialog n8n shows after publishing/activating ("Workflow published" / "Workflow activated"): Got it. */
	async dismissPublished(page: Page) {
		await page.getByRole('button', { name: 'Got it' }).click();
	},
};

const CRM_SYNC = join(REPO_ROOT, 'examples', 'crm-sync.json');
const crmSync = JSON.parse(readFileSync(CRM_SYNC, 'utf8')) as WorkflowJson;
const CRM_TRIGGER = crmSync.nodes.find((n) => n.type === NODE_TYPES.trigger)!.name;
const ACTIVE_NODES = crmSync.nodes.filter((n) => !n.type.endsWith('.stickyNote'));
/** The name n8n gives a new credential of the type (what the example's nodes name too). */
const CREDENTIAL_NAME = 'Voice AI account';
const CALLERS = [
	{ name: 'Ada Lovelace', phone: '+14155550101', email: 'ada@example.com', intent: 'book a demo' },
	{ name: 'Grace Hopper', phone: '+14155550102', email: 'grace@example.com', intent: 'support' },
];

// The README's "First workflow", as a newcomer follows it on an n8n started a moment ago.
describe(`a newcomer's first workflow on a fresh n8n ${VERSION}: the shipped examples/crm-sync.json`, () => {
	let session: EditorSession;
	let workflowId: string;
	let agentId: string;

	beforeAll(async () => {
		session = await openEditor();
		const state = await session.admin.state<{ agents: Array<{ id: string }> }>('org_acme');
		agentId = state.agents[0].id;
	});

	afterAll(async () => {
		await session?.close();
	});

	afterEach(() => {
		expect(session.pageErrors.splice(0)).toEqual([]);
	});

	it('step 3: creates the Voice AI API credential (Credentials, Create), its test passing', async () => {
		const { page, n8n, sandbox } = session;
		await page.goto(`${n8n.baseUrl}/home/credentials`, { waitUntil: 'domcontentloaded' });
		await page
			.getByRole('button', { name: /^(Create credential|Add first credential)$/ })
			.first()
			.click();
		await page.keyboard.type('Voice AI API');
		await page.getByRole('option', { name: 'Voice AI API', exact: true }).click();
		await page.locator('[data-test-id="new-credential-type-button"]').click();
		const modal = page.locator('[data-test-id="editCredential-modal"]');
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(sandbox.baseUrl);
		await modal
			.locator('[data-test-id="parameter-input-apiKey"] input')
			.fill(sandbox.orgs[0].apiKey);
		await modal.locator('[data-test-id="credential-save-button"]').click();
		// Saving runs the credential's test; n8n 2.40 closes the dialog when it passes, 1.x shows it there.
		const tested = modal.getByText(/Connection tested successfully/i);
		await pollUntil(async () => (await tested.isVisible()) || !(await modal.isVisible()), {
			timeoutMs: 60_000,
			what: 'the credential saved and tested',
		});
		if (await modal.isVisible()) {
			await screenshot(page, join(SHOTS, '01-credential-tested.png'), [
				/Connection tested successfully/i,
			]);
			await modal
				.locator('.el-dialog__headerbtn, [aria-label="Close this dialog"]')
				.first()
				.click();
			await modal.waitFor({ state: 'hidden' });
		}
		await screenshot(page, join(SHOTS, '01-credentials.png'), [CREDENTIAL_NAME]);
		const credentials = await session.api.request<Array<{ name: string; type: string }>>(
			'GET',
			'/rest/credentials',
		);
		expect(credentials.map((c) => [c.type, c.name])).toEqual([['voiceAiApi', CREDENTIAL_NAME]]);
	});

	it('step 4: imports the shipped file through Import from File, its bytes as downloaded', async () => {
		const { page, n8n } = session;
		await page.goto(`${n8n.baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await ui.importFromFile(page, CRM_SYNC);
		for (const name of ACTIVE_NODES.map((n) => n.name))
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: name })
				.first()
				.waitFor();
		await screenshot(page, join(SHOTS, '02-imported.png'), [CRM_TRIGGER]);
		await ui.save(page);
		workflowId = workflowIdOf(page);
		// Saved as imported: every node of the file (n8n drops parameters at their default when it saves).
		const saved = await pollUntil(
			async () => {
				const { nodes } = await session.api.getWorkflow(workflowId);
				return nodes.length === crmSync.nodes.length ? nodes : undefined;
			},
			{ what: 'the imported nodes saved' },
		);
		const shape = (nodes: WorkflowJson['nodes']) =>
			nodes.map((n) => ({
				name: n.name,
				type: n.type,
				whenOwnerUnknown: n.parameters.whenOwnerUnknown ?? 'refuse',
			}));
		expect(shape(saved)).toEqual(shape(crmSync.nodes));
	});

	it('step 5: each Voice AI node has the credential (chosen where n8n did not choose it)', async () => {
		const { page } = session;
		const ndv = page.locator('[data-test-id="ndv"]');
		const chosenBy: Record<string, string> = {};
		for (const node of crmSync.nodes.filter((n) => n.credentials?.voiceAiApi)) {
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: node.name })
				.first()
				.dblclick();
			await ndv.waitFor();
			const select = ndv.locator('[data-test-id="node-credentials-select"]');
			await select.waitFor();
			const shown = await select.locator('input').inputValue();
			if (shown !== CREDENTIAL_NAME) {
				await select.click();
				await page.getByRole('option').filter({ hasText: CREDENTIAL_NAME }).first().click();
			}
			chosenBy[node.name] = shown === CREDENTIAL_NAME ? 'n8n' : 'the user';
			expect(await select.locator('input').inputValue()).toBe(CREDENTIAL_NAME);
			if (node.name === CRM_TRIGGER)
				await screenshot(page, join(SHOTS, '03-trigger-credential.png'), [
					triggerLabel('receiveFrom'),
				]);
			await ui.closeNdv(page);
		}
		console.log(`n8n ${VERSION}: the credential of each Voice AI node chosen by`, chosenBy);
		await ui.save(page);
		// By ID: the file names its placeholder credential "Voice AI account" too.
		const [{ id }] = await session.api.request<Array<{ id: string }>>('GET', '/rest/credentials');
		const withCredential = (nodes: WorkflowJson['nodes']) =>
			nodes.filter((n) => n.credentials).map((n) => [n.name, n.credentials?.voiceAiApi?.id]);
		const expected = crmSync.nodes.filter((n) => n.credentials).map((n) => [n.name, id]);
		await pollUntil(
			async () =>
				JSON.stringify(withCredential((await session.api.getWorkflow(workflowId)).nodes)) ===
				JSON.stringify(expected),
			{ what: 'the credential saved in each Voice AI node' },
		);
	});

	it('step 6: Execute workflow waits for a test event; a simulated conversation runs every node', async () => {
		const { page, admin, api } = session;
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		await pollUntil(
			async () => (await admin.accountWebhook('org_acme'))?.includes('/webhook-test/'),
			{ timeoutMs: 60_000, what: 'the test URL at the account' },
		);
		await admin.simulateConversation('org_acme', { agentId, variables: CALLERS[0] });
		const run = await pollUntil(
			async () =>
				(await api.listExecutions(workflowId)).find(
					(e) => e.mode === 'manual' && !['new', 'running', 'waiting'].includes(e.status),
				),
			{ timeoutMs: 60_000, what: 'the test run' },
		);
		const detail = await api.getExecution(run.id);
		expect({
			status: detail.status,
			error: detail.error,
			ran: Object.keys(detail.outputs),
		}).toEqual({
			status: 'success',
			error: undefined,
			ran: ACTIVE_NODES.map((n) => n.name),
		});
		await screenshot(page, join(SHOTS, '04-test-run.png'), ['1 item']);
		// The sample item, where the newcomer looks for it: the trigger's output.
		await page
			.locator('[data-test-id="canvas-node"]')
			.filter({ hasText: CRM_TRIGGER })
			.first()
			.dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator('[data-test-id="output-panel"]').getByText(CALLERS[0].name).first().waitFor();
		await screenshot(page, join(SHOTS, '05-sample-item.png'), [CALLERS[0].email]);
		await ui.closeNdv(page);
	});

	it('step 7: publishes; the next conversation runs it, shown in Executions as succeeded', async () => {
		const { page, admin, api } = session;
		await closeToasts(page);
		await ui.publish(page);
		await pollUntil(async () => await productionUrlAtAccount(session, workflowId), {
			timeoutMs: 60_000,
			what: 'the production URL at the account',
		});
		await ui.dismissPublished(page);
		await screenshot(page, join(SHOTS, '06-published.png'), [LINE_1 ? 'Active' : 'Published']);
		expect((await toasts(page)).filter((t) => /activat|publish/i.test(t))).toEqual([]);

		await admin.simulateConversation('org_acme', { agentId, variables: CALLERS[1] });
		const run = await pollUntil(
			async () =>
				(await api.listExecutions(workflowId)).find(
					(e) => e.mode !== 'manual' && !['new', 'running', 'waiting'].includes(e.status),
				),
			{ timeoutMs: 60_000, what: 'the published run' },
		);
		await page.locator('[data-test-id="radio-button-executions"]').click();
		const entry = page.locator(`[data-test-id="execution-details-${run.id}"]`);
		await entry.click();
		expect(await entry.innerText()).toMatch(/Succeeded/);
		await screenshot(page, join(SHOTS, '07-executions.png'), [/Succeeded/]);
		const detail = await api.getExecution(run.id);
		expect({
			status: detail.status,
			error: detail.error,
			ran: Object.keys(detail.outputs),
		}).toEqual({
			status: 'success',
			error: undefined,
			ran: ACTIVE_NODES.map((n) => n.name),
		});
		expect(detail.outputs[CRM_TRIGGER]?.[0]).toMatchObject({ name: CALLERS[1].name });
	});
});

describe(`the editor in a real browser (n8n ${VERSION})`, () => {
	let session: EditorSession;
	let sandbox: Sandbox;
	let n8n: N8nProcess;
	let api: N8nApi;
	let credential: CredentialRef;
	let page: Page;

	beforeAll(async () => {
		session = await openEditor();
		({ sandbox, n8n, api, page } = session);
		credential = await api.createVoiceAiCredential({
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.orgs[0].apiKey,
		});
	});

	afterAll(async () => {
		await session?.close();
	});

	afterEach(() => {
		// Any error thrown in the page fails the step that caused it.
		expect(session.pageErrors.splice(0)).toEqual([]);
	});

	const searchPanel = async (term: string) => {
		const bar = page.locator('[data-test-id="node-creator-search-bar"]');
		await bar.fill(term);
		await page.waitForTimeout(300);
		return await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
	};

	const closeNdv = async () => await ui.closeNdv(page);

	const openTrigger = async () => {
		await page.locator('[data-test-id="canvas-node"]').first().dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.waitFor();
		return ndv;
	};

	const chooseOption = async (parameter: string, optionName: string) => {
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator(`[data-test-id="parameter-input-${parameter}"]`).click();
		await page.getByRole('option').filter({ hasText: optionName }).first().click();
		expect(
			await ndv.locator(`[data-test-id="parameter-input-${parameter}"] input`).inputValue(),
		).toBe(optionName);
	};

	let newWorkflowId: string;

	it('adds the trigger from the nodes panel: its panel with every default (the README image)', async () => {
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
		// The only credential of its type is chosen for a new node.
		await pollUntil(
			async () =>
				(await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue()) ===
				credential.name,
			{ what: 'the credential chosen' },
		);
		const labels = ['receiveFrom', 'output', 'whenHeld', 'whenOwnerUnknown', 'onDeactivation'];
		await screenshot(page, join(IMAGES_HERE, 'voice-ai-trigger.png'), [
			...labels.map(triggerLabel),
			'If Nobody Can Tell Who Holds It to Go Ahead',
		]);
		await closeNdv();
	});

	it('publishing it with every default is refused, the toast naming the way out; taking it publishes', async () => {
		const admin = new SandboxAdmin(sandbox);
		const clicked = Date.now();
		await ui.publish(page);
		const refusal = await pollUntil(
			async () => (await toasts(page)).find((t) => /could not be (activated|published)/i.test(t)),
			{ timeoutMs: 90_000, what: 'the refusal toast' },
		).catch(async (error: Error) => {
			await page.screenshot({ path: join(SHOTS, '06-publish-refused-missing.png') });
			const shown = {
				toasts: await toasts(page),
				dialogs: await page.getByRole('dialog').allInnerTexts(),
			};
			throw new Error(`${error.message}; the page shows ${JSON.stringify(shown)}`);
		});
		const seconds = ((Date.now() - clicked) / 1000).toFixed(0);
		newWorkflowId = workflowIdOf(page);
		expect(refusal).toContain('"If Nobody Can Tell Who Holds It" to "Go Ahead"');
		expect(await admin.accountWebhook('org_acme')).toBeNull();
		const dialogs = (await page.getByRole('dialog').allInnerTexts()).map((t) =>
			t.replace(/\s+/g, ' ').trim(),
		);
		const saved = await api.getWorkflow(newWorkflowId);
		const status = LINE_1
			? undefined
			: await api.request('GET', `/rest/workflows/${newWorkflowId}/publication-status`);
		const button = page.locator(
			LINE_1
				? '[data-test-id="workflow-activate-switch"]'
				: '[data-test-id="workflow-open-publish-modal-button"]',
		);
		const buttonState = {
			text: (await button.innerText()).trim(),
			enabled: await button.isEnabled(),
			checked: await button.getAttribute('aria-checked'),
		};
		await screenshot(page, join(SHOTS, '06-publish-refused.png'), ['Go Ahead']);
		// What the editor shows after the refusal (recorded for the README and the message).
		console.log(
			JSON.stringify(
				{
					version: VERSION,
					toastAfterSeconds: seconds,
					toasts: await toasts(page),
					dialogs,
					button: buttonState,
					workflowActive: saved.active,
					publicationStatus: status,
				},
				null,
				2,
			),
		);
		if (!LINE_1 && (await page.getByRole('button', { name: 'Got it' }).isVisible()))
			await ui.dismissPublished(page);
		await closeToasts(page);

		// The way out the message names, and nothing else: the option, then Publish (Activate) again.
		await openTrigger();
		await chooseOption('whenOwnerUnknown', listenAnyway);
		await closeNdv();
		// 1.x: Activate while Ctrl+S is still saving, and the save (active: false) can land after the
		// activation and undo it; a user sees "Saved" first.
		if (LINE_1) {
			await page.keyboard.press('Control+s');
			await pollUntil(
				async () =>
					(await api.getWorkflow(newWorkflowId)).nodes.find((n) => n.type === NODE_TYPES.trigger)
						?.parameters.whenOwnerUnknown === 'listen',
				{ what: 'the option saved' },
			);
		}
		await ui.publish(page);
		await pollUntil(async () => await productionUrlAtAccount(session, newWorkflowId), {
			timeoutMs: 60_000,
			what: 'the production URL at the account',
		});
		// 1.x shows its "Workflow activated" dialog again; 2.x showed "Workflow published" once, for the
		// refused publish (waiting for it a second time cost a minute of the run on 2.40.7 and 2.41.1).
		if (LINE_1) await ui.dismissPublished(page);
		expect((await api.getWorkflow(newWorkflowId)).active).toBe(true);
	});

	it('starts and stops a test listen on the published trigger, which then receives again', async () => {
		const admin = new SandboxAdmin(sandbox);
		const ndv = await openTrigger();
		// n8n 2.40 labels the trigger's test button "Execute step"; while it listens the button says "Stop listening".
		const button = ndv.locator('[data-test-id="trigger-execute-button"]');
		await ndv.locator(ui.executeTriggerButton).first().click();
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
		// Go Ahead's promise: the account goes back to this published workflow when the test ends.
		await pollUntil(async () => await productionUrlAtAccount(session, newWorkflowId), {
			timeoutMs: 30_000,
			what: 'the production URL back at the account',
		});
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
				await screenshot(page, join(IMAGES_HERE, 'voice-ai-node.png'), op.fields);
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
