import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { identityOf } from '../VoiceAi/accountOwnership/identity';
import {
	type Claim,
	type ClaimEvent,
	claim,
	giveBack,
	holds,
	isKnown,
	type KeyIdentity,
	knowsKey,
	lend,
	noteRegistered,
	release,
} from '../VoiceAi/accountOwnership/state';
import { type Action, type KnownState, TRANSITIONS } from '../VoiceAi/accountOwnership/transitions';
import { handBackFailed, heldByAnother, holderUnknown } from './refusals';
import {
	apiKeyOf,
	assertHttpUrl,
	assertServiceCanReach,
	forgetRegistration,
	hashToken,
	productionToken,
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
): Claim {
	const workflow = this.getWorkflow();
	return {
		id: claimIdOf.call(this),
		workflowId: String(workflow.id),
		workflowName: workflow.name ?? String(workflow.id),
		productionUrl,
		token,
		claimedAt,
	};
}

function claimIdOf(this: IHookFunctions | IWebhookFunctions): string {
	return `${this.getWorkflow().id}/${this.getNode().id}`;
}

function testIdOf(this: IHookFunctions): string {
	return `${claimIdOf.call(this)}/test`;
}

/** n8n's `create`: a test listen starts, or the workflow is published (or n8n restores it on start). */
export async function onCreate(this: IHookFunctions): Promise<void> {
	if (this.getMode() === 'manual') await startTestListen.call(this);
	else await publish.call(this);
}

/** n8n's `delete`: the test listen ends, or the workflow is unpublished. */
export async function onDelete(this: IHookFunctions): Promise<void> {
	const record = readRegistration(this.getWorkflowStaticData('node'));
	if (record?.kind === 'test') await endTestListen.call(this);
	else if (record !== undefined) await unpublish.call(this);
}

function publishEventOf(this: IHookFunctions): ClaimEvent {
	const takeOver = this.getNodeParameter('whenHeld') === 'takeOver';
	const activation = this.getActivationMode();
	if (activation === 'init' || activation === 'leadershipChange') return 'restart';
	return takeOver ? 'publishTakingOver' : 'publish';
}

/** publish, publishTakingOver, restart: claim the account; register this workflow's URL when it holds it. */
async function publish(this: IHookFunctions): Promise<void> {
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const staticData = this.getWorkflowStaticData('node');
	if (this.getNodeParameter('onDeactivation') === 'replacementUrl') {
		const replacementUrl = this.getNodeParameter('replacementUrl') as string;
		assertHttpUrl.call(this, replacementUrl, 'Replacement Webhook URL');
	}
	await assertServiceCanReach.call(this, webhookUrl);
	const { apiKey, identity } = await identityOf.call(this, 'always');
	const before = readRegistration(staticData);
	const token = productionToken(apiKey, webhookUrl);
	const claimedAt = before?.kind === 'production' ? (before.claimedAt ?? Date.now()) : Date.now();
	const wanted = claimOf.call(this, webhookUrl, token, claimedAt);
	const claimed = claim(identity, wanted, publishEventOf.call(this));
	if (claimed.outcome === 'refused') {
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
	});
}

/**
 * unpublish, unpublishToUrl. The claim is found by what it was claimed with, whatever key the
 * credential holds now (a rotation). When the service refuses what the table asks, the account still
 * points here, so the claim stays.
 */
async function unpublish(this: IHookFunctions): Promise<void> {
	const staticData = this.getWorkflowStaticData('node');
	const released = release(claimIdOf.call(this));
	let done = false;
	try {
		const toUrl = this.getNodeParameter('onDeactivation') === 'replacementUrl';
		const action = TRANSITIONS[toUrl ? 'unpublishToUrl' : 'unpublish'][released.state];
		await pointAccount.call(this, action, 'next' in released ? { holder: released.next } : {});
		done = true;
	} finally {
		if (!done && released.state !== 'notHolding') released.undo();
	}
	forgetRegistration(staticData);
}

/** testListen, testListenAnyway: borrow the account for this node's test URL. */
async function startTestListen(this: IHookFunctions): Promise<void> {
	const testUrl = this.getNodeWebhookUrl('default') as string;
	await assertServiceCanReach.call(this, testUrl);
	const { identity } = await identityOf.call(this, 'ifNeeded');
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

/** The table's actions that point the account webhook somewhere else (or leave it). */
async function pointAccount(
	this: IHookFunctions,
	action: Action,
	to: { state?: string; holder?: Claim; url?: string },
): Promise<void> {
	if (action === 'handBack') {
		const holder = to.holder!;
		try {
			await registerAccountWebhook.call(this, withToken(holder.productionUrl, holder.token));
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
 * Whether this process knows the organization a delivery reached, cheapest check first: the key hash
 * the registration was made with, the credential's key now (after a rotation), then its agents.
 * Undefined when the credential cannot be read: the next delivery asks again.
 */
async function knownAtDelivery(
	this: IWebhookFunctions,
	record: Registration & { accountKey: string },
): Promise<{ state: KnownState; identity?: KeyIdentity }> {
	if (knowsKey(record.accountKey)) return { state: 'known' };
	if (isKnown((await identityOf.call(this, 'never')).identity)) return { state: 'known' };
	const { identity } = await identityOf.call(this, 'always');
	return { state: isKnown(identity) ? 'known' : 'unknown', identity };
}

/**
 * firstDelivery: after a restart, the first delivery to a published trigger tells this process who
 * holds the organization. Only then is the credential read (and its agents listed).
 */
export async function noteDelivery(
	this: IWebhookFunctions,
	record: Registration | undefined,
): Promise<void> {
	if (record?.kind !== 'production' || record.accountKey === undefined) return;
	let known;
	try {
		known = await knownAtDelivery.call(this, { ...record, accountKey: record.accountKey });
	} catch {
		return; // The next delivery tries again; this one is served all the same.
	}
	if (TRANSITIONS.firstDelivery[known.state] !== 'recordHolder') return;
	// The token the service delivered with: the one it holds, valid whatever key is current.
	const token = String((this.getQueryData() as IDataObject)[TOKEN_PARAMETER]);
	const holder = claimOf.call(this, record.webhookUrl, token, record.claimedAt ?? 0);
	claim(known.identity!, holder, 'restart');
}
