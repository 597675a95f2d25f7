import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { refusal } from './refusals';
import * as registration from './registration';
import type { KeyIdentity, QueuedClaim, Registration } from './registration';

// Who receives an organization's one webhook in this n8n process: docs/trigger-ownership.md. Memory is
// a cache; where neither it nor a trigger's record tells, what could cut a workflow off is refused.

/** A claim in memory: its token is kept here only (none when rebuilt from a record). */
export interface Claim extends QueuedClaim {
	token?: string;
	/** Its unpublish could not point the webhook elsewhere. */
	releaseFailed?: boolean;
}

/** One organization as far as this process can tell; its claims in the order first made, the last holds. */
interface Organization {
	baseUrl: string;
	keyHashes: Set<string>;
	credentialIds: Set<string>;
	agentIds?: Set<string>;
	claims: Claim[];
	/** The test listen borrowing the webhook. */
	lentTo?: string;
	/** Webhook Set (or On Unpublish during a test) pointed it at this URL, to restore after a test. */
	setBy?: { workflowId: string; workflowName: string; url: string };
}

let organizations: Organization[] = [];
/** Publishes refused in this process: n8n's retry runs `delete`, which must not act on an older record. */
const refusedPublishes = new Set<string>();
/** Claims unpublished before this process knew the organization: published again, they are not blocked. */
const unpublishedWhileUnknown = new Set<string>();
let lastDecision: Promise<unknown> = Promise.resolve();

/** Forget everything, as a restart does (tests: static data and modules stay). */
export function forgetAllAccounts(): void {
	organizations = [];
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

/**
 * Whether a key reaches an organization. An agent id belongs to one organization, so a shared id means
 * the same one and two lists with none in common, one of them non-empty, mean two; a new key in a
 * known credential (a rotation) stays with it.
 */
function relationOf(org: Organization, key: KeyIdentity): 'same' | 'other' | 'unknown' {
	if (org.keyHashes.has(key.keyHash)) return 'same';
	const [theirs, mine] = [org.agentIds, key.agentIds];
	if (mine !== undefined && theirs !== undefined && (theirs.size > 0 || mine.length > 0)) {
		return mine.some((id) => theirs.has(id)) ? 'same' : 'other';
	}
	if (org.baseUrl !== key.baseUrl) return 'other';
	return key.credentialId !== undefined && org.credentialIds.has(key.credentialId)
		? 'same'
		: 'unknown';
}

const holderIn = (org: Organization): Claim | undefined => org.claims[org.claims.length - 1];
const byTime = (a: Claim, b: Claim) => a.claimedAt - b.claimedAt;
const withClaim = (id: string) => organizations.find((o) => o.claims.some((c) => c.id === id));
export const hasClaim = (id: string): boolean => withClaim(id) !== undefined;
const knowsKey = (hash: string): boolean => organizations.some((o) => o.keyHashes.has(hash));

/**
 * The key's organizations (several when its agents joined two) and their holder, the last holder it
 * cannot tell from its own, and whether its agents could change that (such an organization, or a rotation).
 */
function view(key: KeyIdentity) {
	const holders = (orgs: Organization[]) => orgs.flatMap((o) => o.claims.slice(-1));
	const same = organizations.filter((o) => relationOf(o, key) === 'same');
	const unknown = organizations.filter((o) => relationOf(o, key) === 'unknown');
	const needsAgents = unknown.length > 0 || same.some((o) => !o.keyHashes.has(key.keyHash));
	const holder = holders(same).sort(byTime).pop();
	return { same, holder, unsure: holders(unknown).pop(), needsAgents };
}

const isKnown = (key: KeyIdentity): boolean => view(key).same.length > 0;
const needsAgents = (key: KeyIdentity): boolean => view(key).needsAgents;

/** This claim holds the webhook now (no test borrowing it, no Webhook Set URL in front). */
export function holds(id: string): Claim | undefined {
	const org = withClaim(id);
	const holder = org && !org.lentTo && !org.setBy ? holderIn(org) : undefined;
	return holder?.id === id ? holder : undefined;
}

/** The published holder Webhook Set would cut off (`unsure`: of an organization the key cannot be told from). */
export function holderForSet(key: KeyIdentity): { holder: Claim; unsure: boolean } | undefined {
	const { holder, unsure } = view(key);
	if (holder !== undefined) return { holder, unsure: false };
	return unsure && { holder: unsure, unsure: true };
}

/** The key's organization, added when new; entries its agents join are merged, and what it tells is learnt. */
function enter(key: KeyIdentity): Organization {
	const [org, ...rest] = view(key).same;
	const learnt: Organization = {
		baseUrl: key.baseUrl,
		keyHashes: new Set([key.keyHash]),
		credentialIds: new Set(key.credentialId === undefined ? [] : [key.credentialId]),
		agentIds: key.agentIds && new Set(key.agentIds),
		claims: [],
	};
	if (org === undefined) {
		organizations.push(learnt);
		return learnt;
	}
	for (const other of [...rest, learnt]) {
		other.keyHashes.forEach((hash) => org.keyHashes.add(hash));
		other.credentialIds.forEach((id) => org.credentialIds.add(id));
		// An empty list is knowledge too: an organization without agents is not one with agents.
		if (other.agentIds) org.agentIds = new Set([...(org.agentIds ?? []), ...other.agentIds]);
		org.claims = [...org.claims, ...other.claims].sort(byTime);
		org.lentTo ??= other.lentTo;
		org.setBy ??= other.setBy;
	}
	organizations = organizations.filter((o) => !rest.includes(o));
	return org;
}

function insert(org: Organization, claim: Claim): void {
	const at = org.claims.findIndex((c) => c.claimedAt > claim.claimedAt);
	org.claims.splice(at === -1 ? org.claims.length : at, 0, { ...claim });
}

/** Fail to Publish, Go Ahead when nobody can tell, Take Over, or n8n 1.x starting (never refused). */
type ClaimEvent = 'publish' | 'publishAnyway' | 'publishTakingOver' | 'restart';
type Claimed =
	| { outcome: 'register' | 'wait' | 'unknown' }
	| { outcome: 'refused'; holder: Claim; unsure: boolean };

/**
 * A new claim is refused when an organization the key cannot be told from has a holder (even taking
 * over: handing back could point that organization here), when another holds it and it does not take
 * over, or when this process has not seen the organization and its record does not say it held it.
 * Joined in the order first made, it registers when it is the latest and no test borrows the webhook.
 */
export function claim(
	key: KeyIdentity,
	wanted: Claim,
	event: ClaimEvent,
	recorded = false,
): Claimed {
	const previous = withClaim(wanted.id);
	if (previous === undefined && event !== 'restart') {
		const { same, holder, unsure } = view(key);
		if (unsure) return { outcome: 'refused', holder: unsure, unsure: true };
		if (holder && event !== 'publishTakingOver')
			return { outcome: 'refused', holder, unsure: false };
		if (same.length === 0 && !recorded && event === 'publish') return { outcome: 'unknown' };
	}
	if (previous) previous.claims = previous.claims.filter((c) => c.id !== wanted.id);
	const org = enter(key);
	insert(org, wanted);
	const latest = holderIn(org)?.id === wanted.id && org.lentTo === undefined;
	return { outcome: latest && !(org.setBy && event === 'restart') ? 'register' : 'wait' };
}

/** The claims queued before this one, oldest first, as its record keeps them: without tokens. */
function queueOf(id: string): QueuedClaim[] {
	const claims = withClaim(id)?.claims ?? [];
	const at = claims.findIndex((c) => c.id === id);
	return claims
		.slice(0, at)
		.map(({ id, workflowId, workflowName, productionUrl, claimedAt, keyHash }) => {
			return { id, workflowId, workflowName, productionUrl, claimedAt, keyHash };
		});
}

type Released =
	| { state: 'notHolding' }
	| { state: 'heldAlone' | 'heldDuringTest'; claim: Claim; org: Organization }
	| { state: 'heldWithQueue'; next: Claim; claim: Claim; org: Organization };

/**
 * A published trigger lets go. Only when it held the webhook is there something to do: hand back to
 * the claim before it (`next`), or, with none, On Unpublish (during a test listen, when it ends).
 */
export function release(id: string): Released {
	const org = withClaim(id);
	if (org === undefined) return { state: 'notHolding' };
	const at = org.claims.findIndex((c) => c.id === id);
	const [claim] = org.claims.splice(at, 1);
	const next = holderIn(org);
	if (at !== org.claims.length || org.setBy) return { state: 'notHolding' };
	if (org.lentTo !== undefined)
		return next ? { state: 'notHolding' } : { state: 'heldDuringTest', claim, org };
	return next ? { state: 'heldWithQueue', next, claim, org } : { state: 'heldAlone', claim, org };
}

export function lend(key: KeyIdentity, testId: string): Claim | undefined {
	const org = enter(key);
	org.lentTo = testId;
	return holderIn(org);
}

export function giveBack(
	testId: string,
):
	| { state: 'setElsewhere'; url: string }
	| { state: 'held'; holder: Claim }
	| { state: 'free' | 'lentToAnotherTest' } {
	const org = organizations.find((o) => o.lentTo === testId);
	if (org === undefined) return { state: 'lentToAnotherTest' };
	org.lentTo = undefined;
	if (org.setBy) return { state: 'setElsewhere', url: org.setBy.url };
	const holder = holderIn(org);
	return holder ? { state: 'held', holder } : { state: 'free' };
}

/** Webhook Set pointed the webhook at a URL: the organization's claims wait until one publishes again. */
function noteSet(key: KeyIdentity, setBy: NonNullable<Organization['setBy']>): void {
	if (isKnown(key)) enter(key).setBy = setBy;
}

type Context = IExecuteFunctions | IHookFunctions | IWebhookFunctions;

const idOf = (ctx: IHookFunctions | IWebhookFunctions) =>
	`${ctx.getWorkflow().id}/${ctx.getNode().id}`;
const workflowOf = (ctx: Context) => ({
	workflowId: String(ctx.getWorkflow().id),
	workflowName: ctx.getWorkflow().name ?? String(ctx.getWorkflow().id),
});

/** Claims whose unpublish failed are ghosts once anything else acts on the organization: forgotten, logged. */
function forgetGhosts(key: KeyIdentity, ctx: Context): void {
	for (const org of view(key).same) {
		const ghosts = org.claims.filter((c) => c.releaseFailed);
		ghosts.forEach((ghost) => ctx.logger.warn(refusal.ghostForgotten(ghost)));
		org.claims = org.claims.filter((c) => !c.releaseFailed);
	}
}

/** A publish or a test listen starts: the node's URL, refused when the service cannot reach it. */
async function begin(this: IHookFunctions, wantAgents: (key: KeyIdentity) => boolean) {
	const url = this.getNodeWebhookUrl('default') as string;
	await registration.assertServiceCanReach.call(this, url);
	const { apiKey, identity } = await registration.identityOf.call(this, wantAgents);
	forgetGhosts(identity, this);
	return { url, apiKey, identity };
}

/** n8n's `create`: a test listen starts, or the workflow is published (or n8n 1.x restores it). */
export async function onCreate(this: IHookFunctions): Promise<void> {
	await oneAtATime(
		async () => await (this.getMode() === 'manual' ? startTest : publish).call(this),
	);
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

function eventOf(this: IHookFunctions): ClaimEvent {
	if (['init', 'leadershipChange'].includes(this.getActivationMode())) return 'restart';
	if (this.getNodeParameter('whenHeld') === 'takeOver') return 'publishTakingOver';
	return this.getNodeParameter('whenOwnerUnknown', 'refuse') === 'listen'
		? 'publishAnyway'
		: 'publish';
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
	const claimed = claim(identity, wanted, eventOf.call(this), recorded);
	refusedPublishes.delete(id);
	if (claimed.outcome === 'unknown' || claimed.outcome === 'refused') refusedPublishes.add(id);
	if (claimed.outcome === 'unknown') throw refusal.publishUnknown(this.getNode());
	if (claimed.outcome === 'refused')
		throw refusal.heldByAnother(this.getNode(), claimed.holder, claimed.unsure);
	if (claimed.outcome === 'register') {
		const registering = registration.withToken(url, token);
		await orUndo(registration.registerAccountWebhook.call(this, registering), () => release(id));
		const org = withClaim(id);
		if (org && holderIn(org)?.id === id) org.setBy = undefined;
	}
	const claimData = { claimedAt, accountKey: keyHash, queued: queueOf(id) };
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
	if (!hasClaim(id) && !(record.accountKey && knowsKey(record.accountKey))) {
		unpublishedWhileUnknown.add(id);
		const queued = record.queued ?? [];
		if (toUrl || queued.length > 0) throw refusal.unpublishUnknown(this.getNode(), queued, toUrl);
		return;
	}
	const released = release(id);
	if (released.state === 'notHolding') return;
	const ghost = () => insert(released.org, { ...released.claim, releaseFailed: true });
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
	const { url, identity } = await begin.call(this, needsAgents);
	const goAhead = this.getNodeParameter('whenOwnerUnknown', 'refuse') === 'listen';
	if (!isKnown(identity) && !goAhead) throw refusal.holderUnknown(this.getNode());
	const token = registration.testToken();
	const testId = `${idOf(this)}/test`;
	lend(identity, testId);
	const testUrl = registration.withToken(url, token);
	await orUndo(registration.registerAccountWebhook.call(this, testUrl), () => giveBack(testId));
	registration.saveRegistration(this.getWorkflowStaticData('node'), 'test', url, token);
}

async function endTest(this: IHookFunctions): Promise<void> {
	const back = giveBack(`${idOf(this)}/test`);
	if (back.state === 'setElsewhere') await registration.registerAccountWebhook.call(this, back.url);
	const org = back.state === 'held' ? withClaim(back.holder.id) : undefined;
	if (org) await handBack.call(this, org);
}

/**
 * Points the webhook back at the organization's holder with its own token (derived from this key for
 * a claim rebuilt from a record); false when no claim is left. A rebuilt claim may be of a workflow
 * unpublished before the restart: n8n answers 404 at its URL (a published trigger, 401 without a
 * token), so it is dropped, logged, and the claim before it is asked; no answer keeps it.
 */
async function handBack(this: IHookFunctions, org: Organization): Promise<boolean> {
	let holder = holderIn(org);
	for (; holder && holder.token === undefined; holder = holderIn(org)) {
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
	const held = record?.webhookUrl === url && holds(idOf(this))?.productionUrl === url;
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
	if (record?.kind !== 'production' || !record.accountKey || knowsKey(record.accountKey)) return;
	const known = await registration.identityOf.call(this, () => false).catch(() => undefined);
	if (known === undefined || isKnown(known.identity)) return;
	// The token the service delivered with is the one it holds, whatever key is current.
	const token = String((this.getQueryData() as IDataObject)[registration.TOKEN_PARAMETER]);
	const { claimedAt = 0, accountKey: keyHash, webhookUrl: productionUrl } = record;
	const holder = { id: idOf(this), ...workflowOf(this), productionUrl, token, claimedAt, keyHash };
	const org = enter(known.identity);
	for (const c of [...(record.queued ?? []), holder]) if (!hasClaim(c.id)) insert(org, c);
	const withAgents = registration.identityOf.call(this, () => true);
	void withAgents.then(({ identity }) => isKnown(identity) && enter(identity)).catch(() => {});
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
		const known = await registration.identityOf.call(this, needsAgents, itemIndex, readAgents);
		forgetGhosts(known.identity, this);
		const held = holderForSet(known.identity);
		if (held && !takeOver)
			throw refusal.setWhileHeld(this.getNode(), held.holder, held.unsure, itemIndex);
		if (!takeOver && !isKnown(known.identity)) throw refusal.setUnknown(this.getNode(), itemIndex);
		const answer = await send('POST', '/webhook/insert-webhook', { webhook: url });
		noteSet(known.identity, { ...workflowOf(this), url });
		return answer;
	});
}
