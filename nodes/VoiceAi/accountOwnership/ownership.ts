import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import * as orgs from './organizations';
import { refusal } from './refusals';
import * as registration from './registration';
import type { KeyIdentity, Registration } from './registration';

// n8n's calls that decide who receives an organization's one webhook (docs/trigger-ownership.md), over
// what this process knows (organizations.ts). Memory is a cache; where neither it nor a trigger's
// record tells, what could cut a workflow off is refused.

/** Publishes refused in this process: n8n's retry runs `delete`, which must not act on an older record. */
const refusedPublishes = new Set<string>();
/** Claims unpublished before this process knew the organization: published again, they are not blocked. */
const unpublishedWhileUnknown = new Set<string>();
let lastDecision: Promise<unknown> = Promise.resolve();

/** Forget everything, as a restart does (tests: static data and modules stay). */
export function forgetAllAccounts(): void {
	orgs.forgetOrganizations();
	refusedPublishes.clear();
	unpublishedWhileUnknown.clear();
}

/** Decisions run one after another, requests included: two reading before either writes could strand the account. */
async function oneAtATime<T>(decide: () => Promise<T>): Promise<T> {
	const turn = lastDecision.then(decide, decide);
	lastDecision = turn.catch(() => undefined);
	return await turn;
}

async function orUndo<T>(action: Promise<T>, undo: () => void): Promise<T> {
	return await action.catch((error: unknown) => {
		undo();
		throw error;
	});
}

const idOf = (ctx: IHookFunctions | IWebhookFunctions) =>
	`${ctx.getWorkflow().id}/${ctx.getNode().id}`;
const workflowOf = (ctx: IExecuteFunctions | IHookFunctions | IWebhookFunctions) => ({
	workflowId: String(ctx.getWorkflow().id),
	workflowName: ctx.getWorkflow().name ?? String(ctx.getWorkflow().id),
});

/** A publish or a test listen starts: the node's URL, refused when the service cannot reach it. */
async function begin(this: IHookFunctions, wantAgents: (key: KeyIdentity) => boolean) {
	const url = this.getNodeWebhookUrl('default') as string;
	await registration.assertServiceCanReach.call(this, url);
	const { apiKey, identity } = await registration.identityOf.call(this, wantAgents);
	orgs.forgetGhosts(identity, this.logger);
	return { url, apiKey, identity };
}

/** n8n's `create`: a test listen starts, or the workflow is published (or n8n 1.x restores it). */
export async function onCreate(this: IHookFunctions): Promise<void> {
	const start = this.getMode() === 'manual' ? startTest : publish;
	await oneAtATime(async () => await start.call(this));
}

/** n8n's `delete`: the test listen ends, or the workflow is unpublished; the record goes unless it fails. */
export async function onDelete(this: IHookFunctions): Promise<void> {
	await oneAtATime(async () => {
		const staticData = this.getWorkflowStaticData('node');
		const record = registration.readRegistration(staticData);
		if (record === undefined) return;
		await (record.kind === 'test' ? endTest.call(this) : unpublish.call(this, record));
		registration.forgetRegistration(staticData);
	});
}

/** If Nobody Can Tell Who Holds It = Go Ahead. */
const goesAhead = (ctx: IHookFunctions) =>
	ctx.getNodeParameter('whenOwnerUnknown', 'refuse') === 'listen';

function eventOf(this: IHookFunctions): orgs.ClaimEvent {
	if (['init', 'leadershipChange'].includes(this.getActivationMode())) return 'restart';
	if (this.getNodeParameter('whenHeld') === 'takeOver') return 'publishTakingOver';
	return goesAhead(this) ? 'publishAnyway' : 'publish';
}

async function publish(this: IHookFunctions): Promise<void> {
	if (this.getNodeParameter('onDeactivation') === 'replacementUrl') replacementUrlOf.call(this);
	const { url, apiKey, identity } = await begin.call(this, () => true);
	const staticData = this.getWorkflowStaticData('node');
	const before = registration.readRegistration(staticData);
	const id = idOf(this);
	const recorded = before?.kind === 'production' || unpublishedWhileUnknown.delete(id);
	const token = registration.productionToken(apiKey, url);
	const claimedAt = (before?.kind === 'production' && before.claimedAt) || Date.now();
	const keyHash = identity.keyHash;
	const wanted = { id, ...workflowOf(this), productionUrl: url, token, claimedAt, keyHash };
	const claimed = orgs.claim(identity, wanted, eventOf.call(this), recorded);
	refusedPublishes.delete(id);
	if (claimed.outcome === 'unknown' || claimed.outcome === 'refused') refusedPublishes.add(id);
	if (claimed.outcome === 'unknown') throw refusal.publishUnknown(this.getNode());
	if (claimed.outcome === 'refused')
		throw refusal.heldByAnother(this.getNode(), claimed.holder, claimed.unsure);
	if (claimed.outcome === 'register') {
		const registering = registration.withToken(url, token);
		const undo = () => orgs.release(id);
		await orUndo(registration.registerAccountWebhook.call(this, registering), undo);
		const org = orgs.withClaim(id);
		if (org && orgs.holderIn(org)?.id === id) org.setBy = undefined;
	}
	const claimData = { claimedAt, accountKey: keyHash, queued: orgs.queueOf(id) };
	registration.saveRegistration(staticData, 'production', url, token, claimData);
}

/**
 * Found by the claim itself, whatever key the credential holds now. When the service refuses, the
 * account still points here: the claim stays, marked, and n8n tries again. Before this process knows
 * the organization, anything but leaving the webhook is refused: another may have taken over since.
 */
async function unpublish(this: IHookFunctions, record: Registration): Promise<void> {
	const id = idOf(this);
	const toUrl = this.getNodeParameter('onDeactivation') === 'replacementUrl';
	if (refusedPublishes.delete(id)) return;
	if (!orgs.hasClaim(id) && !(record.accountKey && orgs.knowsKey(record.accountKey))) {
		unpublishedWhileUnknown.add(id);
		const queued = record.queued ?? [];
		if (toUrl || queued.length > 0) throw refusal.unpublishUnknown(this.getNode(), queued, toUrl);
		return;
	}
	const released = orgs.release(id);
	if (released.state === 'notHolding') return;
	const ghost = () => orgs.insert(released.org, { ...released.claim, releaseFailed: true });
	const queued = released.state === 'heldWithQueue';
	if ((queued && (await orUndo(handBack.call(this, released.org), ghost))) || !toUrl) return;
	const url = replacementUrlOf.call(this);
	if (released.state === 'heldDuringTest') released.org.setBy = { ...workflowOf(this), url };
	else await orUndo(registration.registerAccountWebhook.call(this, url), ghost);
}

function replacementUrlOf(this: IHookFunctions): string {
	const url = this.getNodeParameter('replacementUrl') as string;
	registration.assertHttpUrl.call(this, url, 'Replacement Webhook URL');
	return url;
}

async function startTest(this: IHookFunctions): Promise<void> {
	const { url, identity } = await begin.call(this, orgs.needsAgents);
	if (!orgs.isKnown(identity) && !goesAhead(this)) throw refusal.holderUnknown(this.getNode());
	const token = registration.testToken();
	const testId = `${idOf(this)}/test`;
	orgs.lend(identity, testId);
	const testUrl = registration.withToken(url, token);
	const undo = () => orgs.giveBack(testId);
	await orUndo(registration.registerAccountWebhook.call(this, testUrl), undo);
	registration.saveRegistration(this.getWorkflowStaticData('node'), 'test', url, token);
}

async function endTest(this: IHookFunctions): Promise<void> {
	const back = orgs.giveBack(`${idOf(this)}/test`);
	if (back.state === 'setElsewhere') await registration.registerAccountWebhook.call(this, back.url);
	const org = back.state === 'held' ? orgs.withClaim(back.holder.id) : undefined;
	if (org) await handBack.call(this, org);
}

/**
 * Points the webhook back at the organization's holder with its own token (derived from this key for
 * a claim rebuilt from a record); false when no claim is left. A rebuilt claim may be of a workflow
 * unpublished before the restart: n8n answers 404 at its URL (a published trigger, 401 without a
 * token), so it is dropped, logged, and the claim before it is asked; no answer keeps it.
 */
async function handBack(this: IHookFunctions, org: orgs.Organization): Promise<boolean> {
	let holder = orgs.holderIn(org);
	for (; holder && holder.token === undefined; holder = orgs.holderIn(org)) {
		if (!(await registration.isGone.call(this, holder.productionUrl))) break;
		this.logger.warn(refusal.goneFromQueue(holder));
		org.claims = org.claims.filter((c) => c !== holder);
	}
	if (holder === undefined) return false;
	let token = holder.token;
	if (token === undefined) {
		const { apiKey, identity } = await registration.identityOf.call(this, () => false);
		if (identity.keyHash !== holder.keyHash) throw refusal.handBackNeedsKey(this.getNode(), holder);
		token = registration.productionToken(apiKey, holder.productionUrl);
	}
	const url = registration.withToken(holder.productionUrl, token);
	await registration.registerAccountWebhook.call(this, url).catch((error: Error) => {
		throw refusal.handBackFailed(this.getNode(), holder, error);
	});
	return true;
}

/** n8n's `checkExists`: this published trigger holds the webhook here with its URL and current key (never for a test or at start). */
export async function holdsAccount(this: IHookFunctions): Promise<boolean> {
	const url = this.getNodeWebhookUrl('default') as string;
	const record = registration.readRegistration(this.getWorkflowStaticData('node'));
	const held = record?.webhookUrl === url && orgs.holds(idOf(this))?.productionUrl === url;
	if (!held || this.getMode() === 'manual' || eventOf.call(this) === 'restart') return false;
	const token = registration.productionToken(await registration.apiKeyOf.call(this), url);
	return record.kind === 'production' && record.tokenHash === registration.hashToken(token);
}

/**
 * After a restart the first delivery tells who holds the organization (the service delivered here),
 * and its record who waits behind it. The key's agents are read after the delivery is answered.
 */
export async function noteDelivery(
	this: IWebhookFunctions,
	record: Registration | undefined,
): Promise<void> {
	if (record?.kind !== 'production' || !record.accountKey || orgs.knowsKey(record.accountKey))
		return;
	const known = await registration.identityOf.call(this, () => false).catch(() => undefined);
	if (known === undefined || orgs.isKnown(known.identity)) return;
	// The token the service delivered with is the one it holds, whatever key is current.
	const token = String((this.getQueryData() as IDataObject)[registration.TOKEN_PARAMETER]);
	const { claimedAt = 0, accountKey: keyHash, webhookUrl: productionUrl } = record;
	const holder = { id: idOf(this), ...workflowOf(this), productionUrl, token, claimedAt, keyHash };
	const org = orgs.enter(known.identity);
	for (const c of [...(record.queued ?? []), holder]) if (!orgs.hasClaim(c.id)) orgs.insert(org, c);
	const withAgents = registration.identityOf.call(this, () => true);
	void withAgents
		.then(({ identity }) => orgs.isKnown(identity) && orgs.enter(identity))
		.catch(() => {});
}

/**
 * Webhook Set: refused, sending nothing, when a published trigger holds the organization or this
 * process cannot tell, unless it takes over; then its claims wait until one publishes again.
 */
export async function setAccountWebhook(
	this: IExecuteFunctions,
	{ url, takeOver, itemIndex }: { url: string; takeOver: boolean; itemIndex: number },
	send: (method: 'GET' | 'POST', path: string, body?: IDataObject) => Promise<unknown>,
): Promise<unknown> {
	return await oneAtATime(async () => {
		const readAgents = async () => await send('GET', '/callback/standardCampaign');
		const known = await registration.identityOf.call(this, orgs.needsAgents, itemIndex, readAgents);
		orgs.forgetGhosts(known.identity, this.logger);
		const held = orgs.holderForSet(known.identity);
		if (held && !takeOver)
			throw refusal.setWhileHeld(this.getNode(), held.holder, held.unsure, itemIndex);
		if (!takeOver && !orgs.isKnown(known.identity))
			throw refusal.setUnknown(this.getNode(), itemIndex);
		const answer = await send('POST', '/webhook/insert-webhook', { webhook: url });
		orgs.noteSet(known.identity, { ...workflowOf(this), url });
		return answer;
	});
}
