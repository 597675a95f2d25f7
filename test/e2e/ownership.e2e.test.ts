/**
 * One account, one webhook, in a real n8n: several workflows with a Voice AI Trigger for the same
 * account, published, unpublished and test-listened through n8n's own REST API, fed by the sandbox
 * acting as the service (it delivers to whatever URL the account holds). After every step, the next
 * service delivery must run the published holder exactly once.
 */
import { productionToken } from '../../nodes/VoiceAi/accountOwnership/registration';
import { AccountWebhook, TRIGGER } from '../../harness/accountWebhook';
import { pollUntil, type SavedWorkflow } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const stack = stackForFile();
let rig: AccountWebhook;

/** A trigger workflow; the first publish after n8n starts says no other workflow uses the account. */
async function create(name: string, parameters: Record<string, unknown> = {}) {
	return await rig.trigger(name, { options: {}, whenOwnerUnknown: 'listen', ...parameters });
}

const productionUrl = (workflow: SavedWorkflow) => rig.productionUrl(workflow);
const pointsAt = async (url: string, what: string) => await rig.pointsAt(url, what);

let x: SavedWorkflow;
let y: SavedWorkflow;

beforeAll(async () => {
	rig = new AccountWebhook(stack);
	x = await create('CRM sync (X)');
	y = await create('Draft (Y)', { whenOwnerUnknown: 'refuse' });
	await stack.api.activateWorkflow(x);
	await pointsAt(productionUrl(x), 'the account webhook on X after publishing X');
}, 180_000);

test('scenario 1: after a test listen in unpublished Y, the next service delivery runs published X exactly once', async () => {
	await stack.api.listenForTestEvent(y, TRIGGER);
	await pointsAt(
		productionUrl(y).replace('/webhook/', '/webhook-test/'),
		"the account webhook on Y's test URL",
	);
	const beforeY = await rig.runs(y, 'manual');
	expect((await rig.delivers()).at(-1)).toBe(200);
	await pollUntil(async () => (await rig.runs(y, 'manual')) === beforeY + 1, {
		what: 'the test run of Y',
	});

	await pointsAt(productionUrl(x), 'the account webhook back on X after the test');
	await rig.nextDeliveryRuns(x, [y]);
});

test('scenario 2: publishing B for the same account fails naming X; X keeps receiving', async () => {
	const b = await create('Second sync (B)');
	const held = `held by the published workflow "${x.name}" (ID ${x.id})`;
	expect(await rig.publishError(b, held)).toContain(held);
	expect(await rig.accountUrl()).toBe(productionUrl(x));
	await stack.api.deactivateWorkflow(b);
	await rig.nextDeliveryRuns(x, [b]);
});

test('scenario 2 with take-over: C receives; after unpublishing C, X receives again', async () => {
	const c = await create('Take-over sync (C)', { whenHeld: 'takeOver' });
	await stack.api.activateWorkflow(c);
	await pointsAt(productionUrl(c), 'the account webhook on C after the take-over');
	await rig.nextDeliveryRuns(c, [x]);

	await stack.api.deactivateWorkflow(c);
	await pointsAt(productionUrl(x), 'the account webhook back on X after unpublishing C');
	await rig.nextDeliveryRuns(x, [c]);
});

test('scenario 3: every delivered value reaches the workflow, whether sent as JSON, as text holding JSON or as form fields', async () => {
	const url = new URL(productionUrl(x));
	url.searchParams.set('token', productionToken(stack.org.apiKey, productionUrl(x)));
	const delivery = {
		conversation_id: 'c1',
		variables: { name: 'Fay' },
		call_duration_sec: 93,
		transcript: 'Agent: Hello, Fay…',
		recording_url: 'https://recordings.example.com/c1.mp3',
		metadata: { campaign: 'spring' },
	};
	const bodies: Array<[string, string]> = [
		['application/json', JSON.stringify(delivery)],
		['text/plain', JSON.stringify({ ...delivery, conversation_id: 'c1-text' })],
		[
			'application/x-www-form-urlencoded',
			new URLSearchParams({
				conversation_id: 'c1-form',
				variables: '{"name":"Fay"}',
				call_duration_sec: '93',
			}).toString(),
		],
	];
	const before = await rig.runs(x);
	for (const [contentType, body] of bodies) {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': contentType },
			body,
		});
		expect([contentType, res.status, await res.text()]).toEqual([
			contentType,
			200,
			expect.stringContaining('"started":true'),
		]);
	}
	const list = await pollUntil(
		async () => {
			const runs = (await stack.api.listExecutions(x.id)).filter((e) => e.mode === 'webhook');
			const newest = runs.sort((a, b) => Number(b.id) - Number(a.id)).slice(0, bodies.length);
			return runs.length === before + bodies.length && newest.every((e) => e.status === 'success')
				? newest
				: undefined;
		},
		{ what: 'the three runs to finish' },
	);
	const outputs = await Promise.all(
		list.map(async (e) => (await stack.api.getExecution(e.id)).outputs[TRIGGER][0]),
	);
	const byId = Object.fromEntries(
		outputs.map((json) => [(json._voiceAi as { conversationId: string }).conversationId, json]),
	);
	expect(byId.c1).toMatchObject({
		name: 'Fay',
		conversation: {
			call_duration_sec: 93,
			transcript: delivery.transcript,
			recording_url: delivery.recording_url,
			metadata: { campaign: 'spring' },
		},
	});
	expect(byId['c1-text']).toMatchObject({
		name: 'Fay',
		conversation: { call_duration_sec: 93, metadata: { campaign: 'spring' } },
	});
	expect(byId['c1-form']).toMatchObject({ name: 'Fay', conversation: { call_duration_sec: '93' } });
});

test('after an n8n restart X keeps the account; its next delivery tells n8n who holds it, so a test listen in Y gives it back to X', async () => {
	await rig.restartN8n();
	// n8n 2.x does not run a trigger's publish step again on start: the account keeps pointing at X.
	expect(await rig.accountUrl()).toBe(productionUrl(x));
	// Before any delivery, this n8n cannot tell that X holds the account: Y's test listen is refused.
	await stack.api.listenForTestEvent(y, TRIGGER).catch(() => undefined);
	await new Promise((r) => setTimeout(r, 2_000));
	expect(await rig.accountUrl()).toBe(productionUrl(x));
	await pollUntil(async () => (await rig.delivers()).at(-1) === 200, {
		timeoutMs: 60_000,
		what: 'X serving again after the restart',
	});
	await rig.nextDeliveryRuns(x, [y]);

	await stack.api.listenForTestEvent(y, TRIGGER);
	await pointsAt(
		productionUrl(y).replace('/webhook/', '/webhook-test/'),
		"the account webhook on Y's test URL after the restart",
	);
	await rig.delivers();
	await pointsAt(productionUrl(x), 'the account webhook back on X after the test');
	await rig.nextDeliveryRuns(x, [y]);
}, 240_000);
