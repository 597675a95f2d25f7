import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	type Claim,
	claim,
	giveBack,
	holds,
	identityOf,
	isKnown,
	lend,
	noteRegistered,
	release,
} from './ownership';
import {
	apiKeyOf,
	assertHttpUrl,
	assertServiceCanReach,
	forgetRegistration,
	hashToken,
	productionToken,
	readRegistration,
	registerAccountWebhook,
	saveRegistration,
	testToken,
	withToken,
} from './registration';

/**
 * The four things a Voice AI Trigger does with its organization's one webhook, each a few lines over
 * the ownership state (nodes/VoiceAi/accountOwnership): claim it when published, release it when
 * unpublished, borrow it for a test listen, give it back when the test ends.
 */

function claimOf(
	this: IHookFunctions,
	productionUrl: string,
	token: string,
	claimedAt: number,
): Claim {
	const workflow = this.getWorkflow();
	return {
		id: `${workflow.id}/${this.getNode().id}`,
		workflowId: String(workflow.id),
		workflowName: workflow.name ?? String(workflow.id),
		productionUrl,
		token,
		claimedAt,
	};
}

/** Points the webhook at another workflow with its own token, through this node's credential. */
async function registerProduction(this: IHookFunctions, owner: Claim): Promise<void> {
	try {
		await registerAccountWebhook.call(this, withToken(owner.productionUrl, owner.token));
	} catch (error) {
		const message = `Could not point the Voice AI account webhook at workflow "${owner.workflowName}" (ID ${owner.workflowId}): ${(error as Error).message}`;
		throw new NodeOperationError(this.getNode(), message, {
			description: `That workflow is published and does not receive deliveries until the account webhook points at it again: unpublish and publish it once the service answers.`,
		});
	}
}

function refusal(this: IHookFunctions, holder: Claim, unsure: boolean): NodeOperationError {
	const { workflowName, workflowId } = holder;
	if (unsure) {
		return new NodeOperationError(
			this.getNode(),
			`This Voice AI account's webhook may be held by the published workflow "${workflowName}" (ID ${workflowId}): n8n cannot tell whether this credential's key reaches the same organization`,
			{
				description: `n8n tells the keys of one organization apart from another's by the agents they list, and here neither tells. Use the credential "${workflowName}" uses, or create an agent in this organization, then publish again. Taking over is refused too: giving the account back could point another organization's webhook at "${workflowName}".`,
			},
		);
	}
	return new NodeOperationError(
		this.getNode(),
		`This Voice AI account's webhook is held by the published workflow "${workflowName}" (ID ${workflowId})`,
		{
			description: `The service keeps one webhook URL per organization, whatever key reaches it, so only one published workflow can receive its deliveries. Unpublish "${workflowName}", or set "If Another Workflow Holds It" to "Take Over the Account Webhook" here (unpublishing this workflow later gives the account back).`,
		},
	);
}

/** Publish, or n8n starting up: claim the account; register this workflow's URL when it holds it. */
export async function claimForPublish(this: IHookFunctions): Promise<void> {
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const staticData = this.getWorkflowStaticData('node');
	if (this.getNodeParameter('onDeactivation') === 'replacementUrl') {
		assertHttpUrl.call(
			this,
			this.getNodeParameter('replacementUrl') as string,
			'Replacement Webhook URL',
		);
	}
	await assertServiceCanReach.call(this, webhookUrl);
	const { apiKey, identity } = await identityOf.call(this, 'always');
	const before = readRegistration(staticData);
	const token = productionToken(apiKey, webhookUrl);
	const wanted = claimOf.call(
		this,
		webhookUrl,
		token,
		before?.kind === 'production' ? (before.claimedAt ?? Date.now()) : Date.now(),
	);
	const activation = this.getActivationMode();
	const claimed = claim(identity, wanted, {
		takeOver: this.getNodeParameter('whenHeld') === 'takeOver',
		restoring: activation === 'init' || activation === 'leadershipChange',
	});
	if (claimed.outcome === 'refused') throw refusal.call(this, claimed.holder, claimed.unsure);
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
 * Unpublish: hand the account to the published workflow before this one, or apply On Unpublish. The
 * claim is found by what it was claimed with, whatever key the credential holds now (a rotation).
 */
export async function releaseOnUnpublish(this: IHookFunctions): Promise<void> {
	const staticData = this.getWorkflowStaticData('node');
	const released = release(`${this.getWorkflow().id}/${this.getNode().id}`);
	let done = false;
	try {
		if (released.outcome === 'handOver') {
			await registerProduction.call(this, released.next);
		} else if (
			released.outcome === 'lastOut' &&
			this.getNodeParameter('onDeactivation') === 'replacementUrl'
		) {
			const replacementUrl = this.getNodeParameter('replacementUrl') as string;
			assertHttpUrl.call(this, replacementUrl, 'Replacement Webhook URL');
			await registerAccountWebhook.call(this, replacementUrl);
		}
		done = true;
	} finally {
		// Nothing changed at the service: the account still points here, so the claim stays.
		if (!done && released.outcome !== 'none') released.undo();
	}
	forgetRegistration(staticData);
}

function testIdOf(this: IHookFunctions): string {
	return `${this.getWorkflow().id}/${this.getNode().id}/test`;
}

/** Execute step / Listen for test event: borrow the account for this node's test URL. */
export async function lendForTest(this: IHookFunctions): Promise<void> {
	const testUrl = this.getNodeWebhookUrl('default') as string;
	await assertServiceCanReach.call(this, testUrl);
	const { identity } = await identityOf.call(this, 'ifNeeded');
	if (!isKnown(identity) && this.getNodeParameter('whenOwnerUnknown') !== 'listen') {
		throw new NodeOperationError(
			this.getNode(),
			"n8n cannot tell whether a published workflow receives this Voice AI account's deliveries",
			{
				description:
					'Nothing has published, unpublished or received a delivery for this organization since n8n started, and listening would move its one webhook away from such a workflow for good. If a published workflow has a Voice AI Trigger for it, wait for its next delivery or unpublish and publish it, then listen again. If none has, set "Test Listen If Holder Unknown" to "Listen Anyway".',
			},
		);
	}
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

/** The test listen ended (a delivery, Stop listening, or the timeout): back to the published holder. */
export async function giveBackAfterTest(this: IHookFunctions): Promise<void> {
	const back = giveBack(testIdOf.call(this));
	if (back !== undefined && 'holder' in back) await registerProduction.call(this, back.holder);
	else if (back !== undefined) await registerAccountWebhook.call(this, back.url);
	forgetRegistration(this.getWorkflowStaticData('node'));
}

/** Whether this published trigger holds the account in this process with the URL and key it has now. */
export async function holdsAccount(this: IHookFunctions): Promise<boolean> {
	const record = readRegistration(this.getWorkflowStaticData('node'));
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	if (record?.kind !== 'production' || record.webhookUrl !== webhookUrl) return false;
	const holder = holds(`${this.getWorkflow().id}/${this.getNode().id}`);
	if (holder === undefined || holder.productionUrl !== webhookUrl) return false;
	return record.tokenHash === hashToken(productionToken(await apiKeyOf.call(this), webhookUrl));
}
