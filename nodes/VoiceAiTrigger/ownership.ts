import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { identityOf } from '../VoiceAi/accountOwnership/identity';
import {
	type Claim,
	type ClaimEvent,
	claim,
	forgetGhosts,
	giveBack,
	hasClaim,
	holds,
	isKnown,
	type KeyIdentity,
	knowsKey,
	lend,
	noteRegistered,
	noteSet,
	oneAtATime,
	queuedBefore,
	release,
	restore,
} from '../VoiceAi/accountOwnership/state';
import { type Action, type KnownState, TRANSITIONS } from '../VoiceAi/accountOwnership/transitions';
import {
	handBackFailed,
	handBackNeedsKey,
	heldByAnother,
	holderUnknown,
	publishUnknown,
	unpublishUnknown,
} from './refusals';
import {
	apiKeyOf,
	assertHttpUrl,
	assertServiceCanReach,
	forgetRegistration,
	hashToken,
	productionToken,
	type QueuedClaim,
	readRegistration,
	type Registration,
	registerAccountWebhook,
	saveRegistration,
	TOKEN_PARAMETER,
	testToken,
	withToken,
} from './registration';

/**
 * The trigger's side of its organization's one webhook: each n8n call becomes an event of
 * nodes/VoiceAi/accountOwnership/transitions.ts, whose table says what happens in the state the
 * organization is in (state.ts); the functions here perform it (register a URL at the service, or
 * fail with one of ./refusals). docs/trigger-ownership.md has the rules.
 */

/** One claim per trigger node, built here only (a publish, and the first delivery after a restart). */
function claimOf(
	this: IHookFunctions | IWebhookFunctions,
	productionUrl: string,
	token: string,
	claimedAt: number,
	keyHash: string,
): Claim {
	const workflow = this.getWorkflow();
	return {
		id: claimIdOf.call(this),
		workflowId: String(workflow.id),
		workflowName: workflow.name ?? String(workflow.id),
		productionUrl,
		token,
		claimedAt,
		keyHash,
	};
}

/** What a record keeps of the claims queued before it: everything but the token. */
function queuedOf(claims: Claim[]): QueuedClaim[] {
	return claims.map(({ id, workflowId, workflowName, productionUrl, claimedAt, keyHash }) => ({
		id,
		workflowId,
		workflowName,
		productionUrl,
		claimedAt,
		keyHash,
	}));
}

function claimIdOf(this: IHookFunctions | IWebhookFunctions): string {
	return `${this.getWorkflow().id}/${this.getNode().id}`;
}

function testIdOf(this: IHookFunctions): string {
	return `${claimIdOf.call(this)}/test`;
}

/** n8n's `create`: a test listen starts, or the workflow is published (or n8n restores it on start). */
export async function onCreate(this: IHookFunctions): Promise<void> {
	const manual = this.getMode() === 'manual';
	await oneAtATime(async () => await (manual ? startTestListen : publish).call(this));
}

/** n8n's `delete`: the test listen ends, or the workflow is unpublished. */
export async function onDelete(this: IHookFunctions): Promise<void> {
	await oneAtATime(async () => {
		const record = readRegistration(this.getWorkflowStaticData('node'));
		if (record?.kind === 'test') await endTestListen.call(this);
		else if (record !== undefined) await unpublish.call(this, record);
	});
}

function publishEventOf(this: IHookFunctions): ClaimEvent {
	const activation = this.getActivationMode();
	if (activation === 'init' || activation === 'leadershipChange') return 'restart';
	if (this.getNodeParameter('whenHeld') === 'takeOver') return 'publishTakingOver';
	return this.getNodeParameter('whenOwnerUnknown', 'refuse') === 'listen'
		? 'publishAnyway'
		: 'publish';
}

/** A publish n8n tries again after a refusal runs `delete` too: that must not act on an older record. */
const refusedPublishes = new Set<string>();
/**
 * Claims whose record said they held the account when they were unpublished before this process knew
 * who holds it: published again (n8n 2.x tears a changed trigger down and publishes it again; the
 * remedy of every refusal), they are not blocked by the restart.
 */
const unpublishedWhileUnknown = new Set<string>();

/** publish, publishAnyway, publishTakingOver, restart: claim the account; register this workflow's URL when it holds it. */
async function publish(this: IHookFunctions): Promise<void> {
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const staticData = this.getWorkflowStaticData('node');
	if (this.getNodeParameter('onDeactivation') === 'replacementUrl') {
		const replacementUrl = this.getNodeParameter('replacementUrl') as string;
		assertHttpUrl.call(this, replacementUrl, 'Replacement Webhook URL');
	}
	await assertServiceCanReach.call(this, webhookUrl);
	const { apiKey, identity } = await identityOf.call(this, 'always');
	forgetGhosts(identity, (message) => this.logger.warn(message));
	const before = readRegistration(staticData);
	const id = claimIdOf.call(this);
	const recorded = before?.kind === 'production' || unpublishedWhileUnknown.delete(id);
	const token = productionToken(apiKey, webhookUrl);
	const claimedAt = before?.kind === 'production' ? (before.claimedAt ?? Date.now()) : Date.now();
	const wanted = claimOf.call(this, webhookUrl, token, claimedAt, identity.keyHash);
	const claimed = claim(identity, wanted, publishEventOf.call(this), recorded);
	refusedPublishes.delete(wanted.id);
	if (claimed.outcome === 'refused' || claimed.outcome === 'unknown') {
		refusedPublishes.add(wanted.id);
		if (claimed.outcome === 'unknown') throw publishUnknown(this.getNode());
		throw heldByAnother(this.getNode(), claimed.holder, claimed.unsure);
	}
	if (claimed.outcome === 'register') {
		let registered = false;
		try {
			await registerAccountWebhook.call(this, withToken(webhookUrl, token));
			registered = true;
			noteRegistered(wanted.id);
		} finally {
			if (!registered) release(wanted.id);
		}
	}
	saveRegistration(staticData, {
		kind: 'production',
		webhookUrl,
		tokenHash: hashToken(token),
		registeredAt: new Date().toISOString(),
		claimedAt: wanted.claimedAt,
		accountKey: identity.keyHash,
		queued: queuedOf(queuedBefore(wanted.id)),
	});
}

/**
 * unpublish, unpublishToUrl. The claim is found by what it was claimed with, whatever key the
 * credential holds now (a rotation). When the service refuses what the table asks, the account still
 * points here: the claim stays, marked, and n8n tries again (2.x then unpublishes it all the same).
 * After a restart, before anything told this process who holds the account, the record alone cannot
 * tell whether another workflow took it over since: anything but leaving it is refused.
 */
async function unpublish(this: IHookFunctions, record: Registration): Promise<void> {
	const staticData = this.getWorkflowStaticData('node');
	const id = claimIdOf.call(this);
	const toUrl = this.getNodeParameter('onDeactivation') === 'replacementUrl';
	if (refusedPublishes.delete(id)) return forgetRegistration(staticData);
	const known = isKnownClaim(id, record);
	if (!known) unpublishedWhileUnknown.add(id);
	const released = known ? release(id) : ({ state: 'unknownHolder' } as const);
	const action = TRANSITIONS[toUrl ? 'unpublishToUrl' : 'unpublish'][released.state];
	if (action === 'refuseUnlessNothing' && (toUrl || (record.queued ?? []).length > 0)) {
		throw unpublishUnknown(this.getNode(), record.queued ?? [], toUrl);
	}
	let done = false;
	try {
		if (action === 'pointToGivenUrlAfterTest') {
			const workflow = this.getWorkflow();
			const url = this.getNodeParameter('replacementUrl') as string;
			noteSet(await keyIdentity.call(this), {
				workflowId: String(workflow.id),
				workflowName: workflow.name ?? String(workflow.id),
				url,
			});
		} else {
			await pointAccount.call(this, action, 'next' in released ? { holder: released.next } : {});
		}
		done = true;
	} finally {
		if (!done && 'failed' in released) released.failed();
	}
	forgetRegistration(staticData);
}

/** Whether this process knows who holds the organization this production record claimed. */
function isKnownClaim(id: string, record: Registration): boolean {
	return hasClaim(id) || (record.accountKey !== undefined && knowsKey(record.accountKey));
}

async function keyIdentity(this: IHookFunctions): Promise<KeyIdentity> {
	return (await identityOf.call(this, 'never')).identity;
}

/** testListen, testListenAnyway: borrow the account for this node's test URL. */
async function startTestListen(this: IHookFunctions): Promise<void> {
	const testUrl = this.getNodeWebhookUrl('default') as string;
	await assertServiceCanReach.call(this, testUrl);
	const { identity } = await identityOf.call(this, 'ifNeeded');
	forgetGhosts(identity, (message) => this.logger.warn(message));
	const state: KnownState = isKnown(identity) ? 'known' : 'unknown';
	const event =
		state === 'unknown' && this.getNodeParameter('whenOwnerUnknown') === 'listen'
			? 'testListenAnyway'
			: 'testListen';
	if (TRANSITIONS[event][state] === 'refuseUnknown') throw holderUnknown(this.getNode());
	const token = testToken();
	lend(identity, testIdOf.call(this));
	let registered = false;
	try {
		await registerAccountWebhook.call(this, withToken(testUrl, token));
		registered = true;
	} finally {
		if (!registered) giveBack(testIdOf.call(this));
	}
	saveRegistration(this.getWorkflowStaticData('node'), {
		kind: 'test',
		webhookUrl: testUrl,
		tokenHash: hashToken(token),
		registeredAt: new Date().toISOString(),
	});
}

/** testListenEnd (a delivery, Stop listening, or the timeout): the account goes back. */
async function endTestListen(this: IHookFunctions): Promise<void> {
	const back = giveBack(testIdOf.call(this));
	await pointAccount.call(this, TRANSITIONS.testListenEnd[back.state], back);
	forgetRegistration(this.getWorkflowStaticData('node'));
}

/**
 * The token to hand the account back to `holder` with: the one it registered, or, for a claim rebuilt
 * from a record after a restart, the one this key derives when the holder claimed with the same key.
 */
async function handBackToken(this: IHookFunctions, holder: Claim): Promise<string> {
	if (holder.token !== undefined) return holder.token;
	const { apiKey, identity } = await identityOf.call(this, 'never');
	if (identity.keyHash !== holder.keyHash) throw handBackNeedsKey(this.getNode(), holder);
	return productionToken(apiKey, holder.productionUrl);
}

/** The table's actions that point the account webhook somewhere else (or leave it). */
async function pointAccount(
	this: IHookFunctions,
	action: Action,
	to: { state?: string; holder?: Claim; url?: string },
): Promise<void> {
	if (action === 'handBack') {
		const holder = to.holder!;
		const token = await handBackToken.call(this, holder);
		try {
			await registerAccountWebhook.call(this, withToken(holder.productionUrl, token));
		} catch (error) {
			throw handBackFailed(this.getNode(), holder, error as Error);
		}
	} else if (action === 'pointToSetUrl') {
		await registerAccountWebhook.call(this, to.url!);
	} else if (action === 'pointToGivenUrl') {
		const replacementUrl = this.getNodeParameter('replacementUrl') as string;
		assertHttpUrl.call(this, replacementUrl, 'Replacement Webhook URL');
		await registerAccountWebhook.call(this, replacementUrl);
	}
}

/**
 * n8n's `checkExists`: whether this published trigger holds the account in this process with the URL
 * and key it has now. Never for a test, nor when n8n starts (only this process knows who holds it).
 */
export async function holdsAccount(this: IHookFunctions): Promise<boolean> {
	const activation = this.getActivationMode();
	if (this.getMode() === 'manual' || activation === 'init' || activation === 'leadershipChange')
		return false;
	const record = readRegistration(this.getWorkflowStaticData('node'));
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	if (record?.kind !== 'production' || record.webhookUrl !== webhookUrl) return false;
	const holder = holds(claimIdOf.call(this));
	if (holder === undefined || holder.productionUrl !== webhookUrl) return false;
	return record.tokenHash === hashToken(productionToken(await apiKeyOf.call(this), webhookUrl));
}

/**
 * firstDelivery: after a restart, the first delivery to a published trigger tells this process who
 * holds the organization, and its record who waits behind it. Cheapest check first (the key hash the
 * claim was made with, then the credential's key now); the key's agents, which tell other keys apart,
 * are read after the delivery is answered.
 */
export async function noteDelivery(
	this: IWebhookFunctions,
	record: Registration | undefined,
): Promise<void> {
	if (record?.kind !== 'production' || record.accountKey === undefined) return;
	if (knowsKey(record.accountKey)) return;
	let identity: KeyIdentity;
	try {
		identity = (await identityOf.call(this, 'never')).identity;
	} catch {
		return; // The next delivery tries again; this one is served all the same.
	}
	const state: KnownState = isKnown(identity) ? 'known' : 'unknown';
	if (TRANSITIONS.firstDelivery[state] !== 'recordHolder') return;
	// The token the service delivered with: the one it holds, valid whatever key is current.
	const token = String((this.getQueryData() as IDataObject)[TOKEN_PARAMETER]);
	const claimedAt = record.claimedAt ?? 0;
	restore(identity, claimOf.call(this, record.webhookUrl, token, claimedAt, record.accountKey), [
		...(record.queued ?? []),
	]);
	void identityOf
		.call(this, 'always')
		.then((withAgents) => isKnown(withAgents.identity))
		.catch(() => undefined);
}
