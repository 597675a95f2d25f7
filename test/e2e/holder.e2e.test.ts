/**
 * One organization, one holder, in a real n8n of every line (issues 32.1 and 35): two keys of one
 * organization, a key rotated in its credential, another workflow's Webhook Set, and a webhook URL
 * the service cannot reach. The sandbox plays the service and delivers to whatever URL the account
 * holds; for the last part a credential names the service on a non-local host
 * (`http://api.voiceai.test`), which n8n reaches through a small local proxy (HTTP_PROXY,
 * /work/shared/notes/n8n-facts.md "Outbound proxy").
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { type CredentialRef, pollUntil, type SavedWorkflow } from '../../harness/n8n';
import { AccountWebhook, postDelivery, webhookSetWorkflow } from '../../harness/accountWebhook';
import { startStack, type Stack } from '../../harness/stack';
import { manualTrigger } from '../../harness/manualWorkflow';

const SERVICE_HOST = 'api.voiceai.test';
const ACME = 'org_acme';
const GLOBEX = 'org_globex';

let stack: Stack;
let proxy: Server;
const proxied: string[] = [];
let key2: CredentialRef;
let a: SavedWorkflow;

/** Forwards requests for SERVICE_HOST to the sandbox; anything else gets 502. */
async function startProxy(): Promise<string> {
	proxy = createServer((req, res) => {
		const target = new URL(req.url ?? '/', `http://${req.headers.host ?? 'invalid'}`);
		if (target.hostname !== SERVICE_HOST || !stack) {
			res.writeHead(502).end();
			return;
		}
		proxied.push(`${req.method} ${target.pathname}`);
		const sandbox = new URL(stack.sandbox.baseUrl);
		const upstream = httpRequest(
			{
				host: sandbox.hostname,
				port: sandbox.port,
				method: req.method,
				path: `${target.pathname}${target.search}`,
				headers: { ...req.headers, host: sandbox.host },
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.writeHead(502).end());
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

/** Webhook Set started by hand, or (`path`) by n8n's Webhook node: a run nobody watches. */
async function webhookSet(
	name: string,
	credential: CredentialRef,
	whenTriggerHolds?: string,
	path?: string,
): Promise<SavedWorkflow> {
	const start = path
		? {
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, options: {} },
			}
		: manualTrigger();
	const json = webhookSetWorkflow(
		name,
		{
			webhookUrl: 'https://crm.example.com/voice',
			...(whenTriggerHolds ? { whenTriggerHolds } : {}),
		},
		start,
	);
	return await stack.api.importWorkflow(json, { voiceAiApi: credential });
}

async function newKey(org: string): Promise<{ id: string; apiKey: string }> {
	return await stack.admin.request('POST', `/__sandbox/orgs/${org}/keys`, { name: 'n8n' });
}

/** Calls a production Webhook node and returns the error of the run it started, if any. */
async function productionRun(workflow: SavedWorkflow, path: string, body: unknown) {
	const before = await runIds(workflow);
	// n8n 2.x publishes in the background: the path answers 404 until it is live.
	const answer = await pollUntil(
		async () => {
			const res = await postDelivery(
				`${stack.n8n.webhookBase.replace(/\/+$/, '')}/webhook/${path}`,
				body,
			);
			return res.status === 404 ? undefined : res;
		},
		{ timeoutMs: 30_000, what: `the production webhook of "${workflow.name}"` },
	);
	expect(answer.status).toBe(200);
	const id = await pollUntil(
		async () => (await runIds(workflow)).find((run) => !before.includes(run)),
		{ what: `the run of "${workflow.name}"` },
	);
	return await pollUntil(
		async () => {
			const run = await stack.api.getExecution(id);
			return ['new', 'running', 'waiting'].includes(run.status) ? undefined : run;
		},
		{ what: `the end of run ${id}` },
	);
}

async function runIds(workflow: SavedWorkflow): Promise<string[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: workflow.id }));
	const page = await stack.api.request<{ results: Array<{ id: string | number }> }>(
		'GET',
		`/rest/executions?filter=${filter}&limit=100`,
	);
	return page.results.map((run) => String(run.id));
}

/** The ownership suites' view of the account webhook (harness/accountWebhook.ts), per organization. */
let acme: AccountWebhook;
let globex: AccountWebhook;
const rigOf = (org: string) => (org === GLOBEX ? globex : acme);

/** Each trigger says Go Ahead: its first publish in this freshly started n8n is for A's organization alone. */
async function trigger(
	name: string,
	credential: CredentialRef,
	parameters: Record<string, unknown> = {},
): Promise<SavedWorkflow> {
	return await acme.trigger(name, { whenOwnerUnknown: 'listen', ...parameters }, credential);
}
const productionUrl = (workflow: SavedWorkflow) => acme.productionUrl(workflow);
const accountUrl = async (org = ACME) => await rigOf(org).accountUrl();
const pointsAt = async (url: string, what: string, org = ACME) =>
	await rigOf(org).pointsAt(url, what);
const nextDeliveryRuns = async (holder: SavedWorkflow, org = ACME) =>
	await rigOf(org).nextDeliveryRuns(holder);
const publishError = async (workflow: SavedWorkflow, expected: string) =>
	await acme.publishError(workflow, expected);
const unpublish = async (...workflows: SavedWorkflow[]) => await acme.unpublish(...workflows);
/** Publishing `refused` fails naming `holder`, which still holds the account webhook afterwards. */
async function refusedWhileHeld(refused: SavedWorkflow, holder: SavedWorkflow): Promise<void> {
	const error = await publishError(refused, 'held by the published workflow');
	expect(error).toContain(`held by the published workflow "${holder.name}" (ID ${holder.id})`);
	await unpublish(refused);
	expect(await accountUrl()).toBe(productionUrl(holder));
}

beforeAll(async () => {
	const proxyUrl = await startProxy();
	stack = await startStack({
		n8n: { env: { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1,localhost' } },
	});
	acme = new AccountWebhook(stack, ACME);
	globex = new AccountWebhook(stack, GLOBEX);
	key2 = await stack.api.createVoiceAiCredential(
		{ baseUrl: stack.sandbox.baseUrl, apiKey: (await newKey(ACME)).apiKey },
		'Acme, second key',
	);
	a = await trigger('Holder (A)', stack.credential);
	await stack.api.activateWorkflow(a);
	await pointsAt(productionUrl(a), 'the account webhook on A');
}, 300_000);

afterAll(async () => {
	await stack?.close();
	proxy?.closeAllConnections();
	await new Promise((resolve) => proxy?.close(resolve));
});

describe('two keys of one organization', () => {
	test('publishing Z on the second key with Fail to Publish is refused naming A; A keeps receiving', async () => {
		const z = await trigger('Second key (Z)', key2);
		await refusedWhileHeld(z, a);
		await nextDeliveryRuns(a);
	});

	test('with Take Over Z takes it, and unpublishing Z hands it back to A', async () => {
		const z = await trigger('Second key, take over (Z)', key2, { whenHeld: 'takeOver' });
		await stack.api.activateWorkflow(z);
		await pointsAt(productionUrl(z), 'the account webhook on Z after the take-over');
		await nextDeliveryRuns(z);
		await unpublish(z);
		await pointsAt(productionUrl(a), 'the account webhook back on A after unpublishing Z');
		await nextDeliveryRuns(a);
	});
});

describe("another workflow's Webhook Set", () => {
	test('is refused by default, naming A, and sends nothing', async () => {
		const set = await webhookSet('Point at the CRM', key2);
		const run = await stack.api.runWorkflow(set, 'Start');
		expect(run.status).toBe('error');
		expect(run.error).toContain(`held by the published workflow "${a.name}" (ID ${a.id})`);
		expect(run.error).toContain('"Take It Over"');
		expect(await accountUrl()).toBe(productionUrl(a));
		await nextDeliveryRuns(a);
	});

	test('with Take It Over it sets the URL; A no longer holds, and publishing A again takes it back', async () => {
		const set = await webhookSet('Point at the CRM on purpose', key2, 'takeOver');
		const run = await stack.api.runWorkflow(set, 'Start');
		expect(run.error).toBeUndefined();
		expect(await stack.admin.accountWebhook(ACME)).toBe('https://crm.example.com/voice');
		await unpublish(a);
		expect(await stack.admin.accountWebhook(ACME)).toBe('https://crm.example.com/voice');
		await stack.api.activateWorkflow(a);
		await pointsAt(productionUrl(a), 'the account webhook on A, published again');
		await nextDeliveryRuns(a);
	});
});

test('a run nobody watches refuses when this n8n cannot tell whether a trigger holds the organization; Take It Over sets it', async () => {
	const fresh = await stack.admin.request<{ id: string }>('POST', '/__sandbox/orgs', {
		name: 'Fresh',
	});
	const credential = await stack.api.createVoiceAiCredential(
		{ baseUrl: stack.sandbox.baseUrl, apiKey: (await newKey(fresh.id)).apiKey },
		'Fresh organization',
	);
	const path = `set-${randomUUID().slice(0, 8)}`;
	const set = await webhookSet(
		'Set from a webhook',
		credential,
		'={{ $json.body.whenTriggerHolds }}',
		path,
	);
	await stack.api.activateWorkflow(set);
	const refused = await productionRun(set, path, { whenTriggerHolds: 'refuse' });
	expect(refused.status).toBe('error');
	// n8n 1.x keeps a production run's node error with the node only: read the stored run whole.
	const stored = JSON.stringify(await stack.api.request('GET', `/rest/executions/${refused.id}`));
	expect(stored).toContain('n8n cannot tell whether a published workflow receives');
	expect(await stack.admin.accountWebhook(fresh.id)).toBeNull();
	const taken = await productionRun(set, path, { whenTriggerHolds: 'takeOver' });
	expect(taken.error).toBeUndefined();
	expect(await stack.admin.accountWebhook(fresh.id)).toBe('https://crm.example.com/voice');
	await unpublish(set);
});

test('a key rotated in its credential keeps its claims: a second workflow on it is refused; unpublishing the holder applies On Unpublish', async () => {
	await unpublish(a);
	const oldKey = await newKey(ACME);
	const data = { baseUrl: stack.sandbox.baseUrl, authHeader: 'bearer' };
	const rotating = await stack.api.createVoiceAiCredential(
		{ ...data, apiKey: oldKey.apiKey } as { baseUrl: string; apiKey: string },
		'Acme, rotating',
	);
	const r = await trigger('Rotating holder (R)', rotating, {
		onDeactivation: 'replacementUrl',
		replacementUrl: 'https://crm.example.com/after-r',
	});
	await stack.api.activateWorkflow(r);
	await pointsAt(productionUrl(r), 'the account webhook on R');

	// docs/credentials.md: paste the new key into the credential, then revoke the old one.
	await stack.api.request('PATCH', `/rest/credentials/${rotating.id}`, {
		name: rotating.name,
		type: 'voiceAiApi',
		data: { ...data, apiKey: (await newKey(ACME)).apiKey },
	});
	await stack.admin.request('POST', `/__sandbox/keys/${oldKey.id}/revoke`);

	const b = await trigger('Same credential (B)', rotating);
	await refusedWhileHeld(b, r);

	await unpublish(r);
	await pollUntil(
		async () => (await stack.admin.accountWebhook(ACME)) === 'https://crm.example.com/after-r',
		{ timeoutMs: 30_000, what: "On Unpublish's URL after unpublishing R" },
	);
});

test('publishing with a loopback WEBHOOK_URL and the service on another host fails with the message; the option turns it off', async () => {
	const remote = await stack.api.createVoiceAiCredential(
		{ baseUrl: `http://${SERVICE_HOST}`, apiKey: stack.sandbox.orgs[1].apiKey },
		'Globex, through its public name',
	);
	const refused = await trigger('Local n8n (L)', remote);
	const error = await publishError(refused, 'cannot reach n8n');
	expect(error).toContain(
		`Voice AI at ${SERVICE_HOST} cannot reach n8n at ${productionUrl(refused)}: set n8n's WEBHOOK_URL`,
	);
	await unpublish(refused);
	expect(await stack.admin.accountWebhook(GLOBEX)).toBeNull();

	const allowed = await trigger('Local n8n, same network (M)', remote, {
		options: { allowLocalUrl: true },
	});
	await stack.api.activateWorkflow(allowed);
	await pointsAt(productionUrl(allowed), 'the Globex webhook on M', GLOBEX);
	expect(proxied).toContain('POST /webhook/insert-webhook');
	await nextDeliveryRuns(allowed, GLOBEX);
});
