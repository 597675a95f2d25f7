import type { IExecuteFunctions, IHookFunctions, INode, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { untilAborted } from '../transport/pacing';
import * as orgs from './organizations';
import * as registration from './registration';
import type { KeyIdentity, QueuedClaim, Registration } from './registration';

// n8n's calls deciding who receives an organization's one webhook (docs/trigger-ownership.md).

let lastDecision: Promise<unknown> = Promise.resolve();

/**
 * Decisions run one after another, requests included: two reading before either writes could strand
 * the account. A decision stopped while it waits (Stop) leaves the queue at once; its place passes
 * on when the one before it ends. Every decision ends within its requests' bound
 * (docs/operations.md).
 */
async function oneAtATime<T>(decide: () => Promise<T>, stop?: AbortSignal): Promise<T> {
	const before = lastDecision;
	let done = () => {};
	lastDecision = new Promise<void>((resolve) => (done = resolve));
	try {
		await untilAborted(before, stop);
		return await decide();
	} finally {
		void before.then(done);
	}
}

async function orUndo<T>(action: Promise<T>, undo: () => void): Promise<T> {
	return await action.catch((error: unknown) => {
		undo();
		throw error;
	});
}

const idOf = (ctx: IHookFunctions | IWebhookFunctions) =>
	`${ctx.getWorkflow().id}/${ctx.getNode().id}`;
const workflowOf = (ctx: IHookFunctions | IWebhookFunctions) => ({
	workflowId: String(ctx.getWorkflow().id),
	workflowName: ctx.getWorkflow().name ?? String(ctx.getWorkflow().id),
});

async function begin(this: IHookFunctions, wantAgents: (key: KeyIdentity) => boolean) {
	const url = this.getNodeWebhookUrl('default') as string;
	await registration.assertServiceCanReach.call(this, url);
	const { apiKey, identity } = await registration.identityOf.call(this, wantAgents);
	orgs.forgetGhosts(identity, this.logger);
	// n8n never calls a test's delete again: a give-back that failed there is tried before all else.
	const unreturned = orgs.unreturnedOf(identity);
	if (unreturned) await giveBackAfterTest.call(this, unreturned).catch(() => {});
	return { url, apiKey, identity };
}

export async function onCreate(this: IHookFunctions): Promise<void> {
	const start = this.getMode() === 'manual' ? startTest : publish;
	await oneAtATime(async () => await start.call(this));
}

export async function onDelete(this: IHookFunctions): Promise<void> {
	await oneAtATime(async () => {
		const staticData = this.getWorkflowStaticData('node');
		const record = registration.readRegistration(staticData);
		// n8n 1.x (2.x without its publication service) tears down an activation that another node
		// failed after this create with the database's static data: no record, but the claim made here.
		const url = this.getNodeWebhookUrl('default');
		const claimed = orgs.organizationWithClaim(idOf(this))?.claims.find((c) => c.id === idOf(this));
		if (record === undefined && claimed?.productionUrl !== url) return;
		// n8n's retry after a refused or failed publish: the record still describes the last claim. A
		// test's end is no retry.
		if (record?.kind === 'production' && orgs.takeRefusedPublish(idOf(this))) return;
		await (record?.kind === 'test' ? endTest.call(this) : unpublish.call(this, record));
		delete staticData.registration;
	});
}

const goesAhead = (ctx: IHookFunctions) =>
	ctx.getNodeParameter('whenOwnerUnknown', 'refuse') === 'listen';
function eventOf(this: IHookFunctions): orgs.ClaimEvent {
	if (['init', 'leadershipChange'].includes(this.getActivationMode())) return 'restart';
	if (this.getNodeParameter('whenHeld') === 'takeOver') return 'publishTakingOver';
	return goesAhead(this) ? 'publishAnyway' : 'publish';
}

async function publish(this: IHookFunctions): Promise<void> {
	if (this.getNodeParameter('onDeactivation', 'leave') === 'replacementUrl')
		registration.replacementUrlOf.call(this);
	const { url, apiKey, identity } = await begin.call(this, () => true);
	const staticData = this.getWorkflowStaticData('node');
	const before = registration.readRegistration(staticData);
	const id = idOf(this);
	const token = registration.productionToken(apiKey, url);
	// Published again it keeps its place, unless it takes over: then it is the latest claim.
	const takesOver =
		this.getNodeParameter('whenHeld') === 'takeOver' && eventOf.call(this) !== 'restart';
	const claimedAt = (!takesOver && before?.claimedAt) || Date.now();
	const { keyHash, credentialId } = identity;
	const wanted = {
		id,
		...workflowOf(this),
		productionUrl: url,
		token,
		claimedAt,
		keyHash,
		credentialId,
	};
	const wasKnown = orgs.isKnown(identity);
	const claimed = orgs.claim(identity, wanted, eventOf.call(this), goesAhead(this));
	orgs.markPublishRefused(id, claimed.outcome === 'unknown' || claimed.outcome === 'refused');
	if (claimed.outcome === 'unknown') throw refused(this, refusal.publishUnknown());
	if (claimed.outcome === 'refused')
		throw refused(this, refusal[claimed.unsure ? 'mayBeHeld' : 'held'](claimed.holder));
	if (claimed.outcome === 'register') {
		const registering = registration.registerAccountWebhook.call(this, url, token);
		await registering.catch(async (error: Error) => {
			orgs.markPublishRefused(id);
			const { org } = orgs.release(id) as { org?: orgs.Organization };
			if (!wasKnown && org && org.claims.length === 0) return orgs.forget(org, error);
			throw (org && (await restoreAfterFailedWrite.call(this, org))) ?? error;
		});
		orgs.registeredByClaim(orgs.organizationFor(identity));
	}
	const claimData = { claimedAt, accountKey: keyHash, queued: orgs.queueOf(id) };
	registration.saveRegistration(staticData, url, token, claimData);
}

/**
 * Found by the claim, whatever the key is now; a failed request keeps it, marked. Unknown here:
 * only Leave As Is.
 */
async function unpublish(this: IHookFunctions, record?: Registration): Promise<void> {
	const id = idOf(this);
	const toUrl = this.getNodeParameter('onDeactivation', 'leave') === 'replacementUrl';
	if (
		!orgs.organizationWithClaim(id) &&
		!(record?.accountKey && orgs.knowsKey(record.accountKey))
	) {
		const waiting = record?.queued?.at(-1);
		if (toUrl || waiting) throw refused(this, refusal.unpublishUnknown(waiting, toUrl));
		return;
	}
	const released = orgs.release(id);
	if (released.state === 'notHolding') return;
	const ghost = () => orgs.insert(released.org, { ...released.claim, releaseFailed: true });
	const queued = released.state === 'heldWithQueue';
	if ((queued && (await orUndo(handBack.call(this, released.org), ghost))) || !toUrl) return;
	const url = registration.replacementUrlOf.call(this);
	if (released.state === 'heldDuringTest') orgs.setAfterTest(released.org, url);
	else await orUndo(registration.registerAccountWebhook.call(this, url), ghost);
}

async function startTest(this: IHookFunctions): Promise<void> {
	// Not known here: its agents let a later key of the organization be told apart from another's.
	const wantAgents = (key: KeyIdentity) => !orgs.isKnown(key) || orgs.needsAgents(key);
	const { url, identity } = await begin.call(this, wantAgents);
	const held = orgs.holderCutOffBySet(identity);
	if (held && held.unsure) throw refused(this, refusal.mayBeHeld(held.holder, 'listen'));
	if (!orgs.isKnown(identity) && !goesAhead(this)) throw refused(this, refusal.holderUnknown());
	const token = registration.testToken();
	const testId = `${idOf(this)}/test`;
	orgs.lend(identity, testId);
	const registering = registration.registerAccountWebhook.call(this, url, token);
	await registering.catch(async (error: Error) => {
		throw (
			(await endTest.call(this).then(
				() => undefined,
				(e: Error) => e,
			)) ?? error
		);
	});
	registration.saveRegistration(this.getWorkflowStaticData('node'), url, token);
}

/**
 * A write that failed may have landed all the same (a reset or a timeout after it): what the
 * organization held before is registered again; the error naming whom that failed for, if it did.
 */
async function restoreAfterFailedWrite(this: IHookFunctions, org: orgs.Organization) {
	const put = async () => {
		if (org.lentTo !== undefined) return; // the test's URL: its token is not kept here
		if (org.setBy) await registration.registerAccountWebhook.call(this, org.setBy);
		else if (orgs.holderOf(org)) await handBack.call(this, org);
	};
	return await put().then(
		() => undefined,
		(e: Error) => e,
	);
}

async function endTest(this: IHookFunctions): Promise<void> {
	const back = orgs.giveBack(`${idOf(this)}/test`);
	if (back.state === 'known') await giveBackAfterTest.call(this, back.org);
	if (back.state === 'unknown') await backToOwnWorkflow.call(this);
}

/**
 * After a test: the URL Webhook Set gave, else the holder's. n8n only logs a test's failed end and
 * never calls it again: the organization stays marked (its holder does not hold) until a decision
 * there gives it back.
 */
async function giveBackAfterTest(this: IHookFunctions, org: orgs.Organization): Promise<void> {
	orgs.markUnreturned(org, true);
	if (org.setBy) await registration.registerAccountWebhook.call(this, org.setBy);
	else if (orgs.holderOf(org)) await handBack.call(this, org);
	orgs.markUnreturned(org, false);
}

/**
 * Called with every production URL n8n gives this node (publish, delivery): a test listen is given
 * its test URL only.
 */
export function learnProductionUrl(ctx: IHookFunctions | IWebhookFunctions): void {
	orgs.learnProductionUrl(String(ctx.getNode().webhookId), ctx.getNodeWebhookUrl('default')!);
}

/**
 * In a test listen, the node's production URL: learnt, or else (`guess`) from n8n's default paths.
 */
export function productionUrlOf(ctx: IHookFunctions, guess: boolean): string | undefined {
	const testUrl = ctx.getNodeWebhookUrl('default') as string;
	return orgs.productionUrlOf(String(ctx.getNode().webhookId), testUrl, guess);
}

/**
 * A Go-Ahead test ends in a process that still cannot tell: back to this workflow if n8n serves it
 * (published).
 */
async function backToOwnWorkflow(this: IHookFunctions): Promise<void> {
	const url = productionUrlOf(this, true);
	const serving = url === undefined ? 'unknown' : await registration.servingOf.call(this, url);
	if (url === undefined || serving !== 'served') {
		const why =
			serving === 'gone'
				? 'that workflow is not published'
				: "n8n could not reach that workflow's production URL to tell whether it is published (if it is, unpublish and publish it)";
		this.logger.warn(
			`Voice AI: the test listen of workflow ${named(workflowOf(this))} ended in an n8n that cannot tell who holds the account, and ${why}: the account webhook still points at the test URL.`,
		);
		return;
	}
	const token = registration.productionToken(await registration.apiKeyOf.call(this), url);
	const registering = registration.registerAccountWebhook.call(this, url, token);
	await registering.catch((error: Error) => {
		throw refused(this, refusal.handBackFailed(workflowOf(this), error));
	});
}

/**
 * Registers the holder with its own token (rebuilt: from this key), false when none is left; drops
 * rebuilt claims n8n no longer serves.
 */
async function handBack(this: IHookFunctions, org: orgs.Organization): Promise<boolean> {
	let holder = orgs.holderOf(org);
	for (; holder && holder.token === undefined; holder = orgs.holderOf(org)) {
		if (!(await registration.isGone.call(this, holder.productionUrl))) break;
		this.logger.warn(
			`Voice AI: workflow ${named(holder)} was queued for the account webhook before n8n restarted, but n8n no longer serves its URL (unpublished): the webhook is not handed back to it.`,
		);
		orgs.dropGone(org, holder);
	}
	if (holder === undefined) return false;
	let token = holder.token;
	if (token === undefined) {
		const { apiKey, identity } = await registration.identityOf.call(this, () => false);
		// A shared credential rotated since: the holder's trigger accepts its current key's token too.
		const sameCredential = holder.credentialId && holder.credentialId === identity.credentialId;
		if (identity.keyHash !== holder.keyHash && !sameCredential)
			throw refused(this, refusal.handBackNeedsKey(holder));
		token = registration.productionToken(apiKey, holder.productionUrl);
	}
	const registering = registration.registerAccountWebhook.call(this, holder.productionUrl, token);
	await registering.catch((error: Error) => {
		throw refused(this, refusal.handBackFailed(holder, error));
	});
	return true;
}

export async function holdsAccount(this: IHookFunctions): Promise<boolean> {
	const url = this.getNodeWebhookUrl('default') as string;
	const record = registration.readRegistration(this.getWorkflowStaticData('node'));
	const held =
		record?.webhookUrl === url && orgs.registeredHolder(idOf(this))?.productionUrl === url;
	if (!held || this.getMode() === 'manual' || eventOf.call(this) === 'restart') return false;
	const token = registration.productionToken(await registration.apiKeyOf.call(this), url);
	return record.kind === 'production' && record.tokenHash === registration.hashToken(token);
}

/**
 * After a restart, a delivery tells who holds the organization (here, with the token given) and who
 * waits behind.
 */
export async function noteDelivery(this: IWebhookFunctions, record?: Registration): Promise<void> {
	if (record?.kind !== 'production' || !record.accountKey || orgs.knowsKey(record.accountKey))
		return;
	const known = await registration.identityOf.call(this, () => false).catch(() => undefined);
	if (known === undefined || orgs.isKnown(known.identity)) return;
	const query = this.getQueryData() as Record<string, unknown>;
	const { claimedAt = 0, accountKey: keyHash, webhookUrl: productionUrl } = record;
	const token = String(query[registration.TOKEN_PARAMETER]);
	const { credentialId } = known.identity;
	const holder = {
		id: idOf(this),
		...workflowOf(this),
		productionUrl,
		token,
		claimedAt,
		keyHash,
		credentialId,
	};
	const org = orgs.organizationFor(known.identity);
	for (const c of [...(record.queued ?? []), holder])
		if (!orgs.organizationWithClaim(c.id)) orgs.insert(org, c);
	// Its agents tell later keys apart; read after the delivery is answered.
	const withAgents = registration.identityOf.call(this, () => true);
	void withAgents
		.then(({ identity }) => orgs.isKnown(identity) && orgs.organizationFor(identity))
		.catch(() => {});
}

export async function setAccountWebhook(
	this: IExecuteFunctions,
	{ url, takeOver, itemIndex }: { url: string; takeOver: boolean; itemIndex: number },
	send: (method: 'GET' | 'POST', path: string, body?: { webhook: string }) => Promise<unknown>,
): Promise<unknown> {
	return await oneAtATime(async () => {
		const read = async () => await send('GET', '/callback/standardCampaign');
		const known = await registration.identityOf.call(this, orgs.needsAgents, itemIndex, read);
		const { identity } = known;
		orgs.forgetGhosts(identity, this.logger);
		const held = orgs.holderCutOffBySet(identity);
		if (held && !takeOver) throw refused(this, refusal.setWhileHeld(held), itemIndex);
		if (!takeOver && !orgs.isKnown(identity)) throw refused(this, refusal.setUnknown(), itemIndex);
		const answer = await send('POST', '/webhook/insert-webhook', { webhook: url }).catch(
			(error: Error & { httpCode?: string | null }) => {
				// Only a request sent without a clear answer may have written (no status: a reset or
				// timeout after it; or a 5xx). A 4xx, a redirect or an error before sending changed
				// nothing.
				const status = error.httpCode;
				if (!(error instanceof NodeApiError) || (status != null && !status.startsWith('5')))
					throw error;
				// The holder may be cut off. Not kept as set: unpublishing the holder still hands back, a
				// test's end still gives back.
				throw refused(
					this,
					refusal.setMayHaveLanded(held ? held.holder : undefined, error),
					itemIndex,
				);
			},
		);
		orgs.setElsewhere(identity, url);
		return answer;
	}, this.getExecutionCancelSignal?.());
}

type Refusal = [message: string, description: string];
const refused = (ctx: { getNode(): INode }, [message, description]: Refusal, itemIndex?: number) =>
	new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
type Named = Pick<QueuedClaim, 'workflowName' | 'workflowId'>;
const named = ({ workflowName, workflowId }: Named) => `"${workflowName}" (ID ${workflowId})`;
// n8n shows only an error's message on publish (2.x), test listen and activation (1.x): the way out
// is in it.
const SINCE_START =
	'n8n keeps no record of who holds the account across a restart, and nothing has published, unpublished or received a delivery for this organization since n8n started';
const GO_AHEAD = 'set "If Nobody Can Tell Who Holds It" to "Go Ahead"';

const refusal = {
	held: (holder: QueuedClaim): Refusal => [
		`This Voice AI account's webhook is held by the published workflow ${named(holder)}. Unpublish it, or set "If Another Workflow Holds It" to "Take Over the Account Webhook" here`,
		`The service keeps one webhook URL per organization, whatever key reaches it, so only one published workflow can receive its deliveries. Taking over: unpublishing this workflow later gives the account back to "${holder.workflowName}".`,
	],
	mayBeHeld: (holder: QueuedClaim, again = 'publish'): Refusal => [
		`This Voice AI account's webhook may be held by the published workflow ${named(holder)}: n8n cannot tell whether this credential's key reaches the same organization. Use the credential that workflow uses, or create an agent in this organization, and ${again} again`,
		`n8n tells the keys of one organization apart from another's by the agents they list, and here neither tells. Taking over is refused too: giving the account back could point another organization's webhook at "${holder.workflowName}".`,
	],
	holderUnknown: (): Refusal => [
		`n8n cannot tell whether a published workflow receives this Voice AI account's deliveries. If no other workflow uses this account, ${GO_AHEAD} and listen again; if one does, listen after its next delivery`,
		`${SINCE_START}, and listening would move its one webhook away from such a workflow for good. With Go Ahead, when the test ends the account goes back to this workflow if it is published.`,
	],
	handBackFailed: (owner: Named, error: Error): Refusal => [
		`Could not point the Voice AI account webhook at workflow ${named(owner)}: ${error.message}. That workflow receives nothing until it does: unpublish and publish it once the service answers`,
		'The service refused or did not answer the request that hands the account back.',
	],
	publishUnknown: (): Refusal => [
		`n8n cannot tell whether another published workflow receives this Voice AI account's conversations. If no other workflow uses this account, ${GO_AHEAD} and publish (on n8n 1.x: activate) again; if one does, publish after its next delivery`,
		`${SINCE_START}, and publishing would move its one webhook away from such a workflow without a word. Taking over is refused too until then: n8n could not tell whom to give the account back to when this workflow is unpublished.`,
	],
	unpublishUnknown: (waiting: QueuedClaim | undefined, toUrl: boolean): Refusal => [
		`The Voice AI account webhook was not pointed ${waiting ? `back to the workflow ${named(waiting)}, which this one took it over from` : 'at the Replacement Webhook URL of On Unpublish'}: n8n cannot tell whether this workflow still holds it. ${waiting ? `If that workflow should receive and no other published workflow uses this account, ${GO_AHEAD} there and publish it again; if one does, publish it after that one's next delivery` : toUrl ? 'If no other published workflow receives, run Webhook Set with the Replacement Webhook URL' : ''}`.trim(),
		`${SINCE_START}; another workflow may have taken the account over from this one, and pointing it elsewhere would cut that workflow off. The account may still point at this workflow's URL.`,
	],
	handBackNeedsKey: (holder: QueuedClaim): Refusal => [
		`Could not point the Voice AI account webhook back at workflow ${named(holder)}: it claimed the account with another API key, and n8n has restarted since. Unpublish and publish that workflow so that it receives again`,
		`The token of that workflow's address comes from its own key, which this workflow does not hold. The account still points here.`,
	],
	setWhileHeld: ({ holder, unsure }: { holder: QueuedClaim; unsure: boolean }): Refusal => [
		`The Voice AI account's webhook ${unsure ? 'may be held' : 'is held'} by the published workflow ${named(holder)}: setting it would cut that workflow off. Unpublish it first, or set "If a Published Trigger Holds It" to "Take It Over"`,
		`The service keeps one webhook URL per organization, whatever key reaches it${unsure ? ' (n8n cannot tell whether this key reaches the same one)' : ''}, and "${holder.workflowName}" receives its conversations through it. The webhook was not changed.`,
	],
	setMayHaveLanded: (holder: QueuedClaim | undefined, error: Error): Refusal => [
		holder
			? `The Voice AI account webhook may now point at the URL given here (${error.message}), so the published workflow ${named(holder)} may receive nothing. Run Webhook Set again, or unpublish and publish that workflow to give it the account back`
			: `The Voice AI account webhook may now point at the URL given here (${error.message}), and a published workflow that received this account's conversations may receive nothing. Run Webhook Set again once the service answers`,
		'The service did not confirm the request; it may have applied it all the same.',
	],
	setUnknown: (): Refusal => [
		`n8n cannot tell whether a published workflow receives this Voice AI account's conversations, so the webhook was not set. If no published workflow has a Voice AI Trigger for this account, set "If a Published Trigger Holds It" to "Take It Over"`,
		'This n8n process has not seen a Voice AI Trigger for this organization since it started (in queue mode, workers never do), and setting the webhook would cut such a workflow off without a word. The webhook was not changed.',
	],
};
