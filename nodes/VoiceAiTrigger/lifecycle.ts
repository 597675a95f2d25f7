import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type Claim, claim, giveBack, holderOf, isKnown, lend, release } from './ownership';
import {
	accountOf,
	assertHttpUrl,
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
 * The four things a Voice AI Trigger does with its account's one webhook, each a few lines over the
 * ownership module: claim it when published, release it when unpublished, borrow it for a test
 * listen, give it back when the test ends.
 */

function claimOf(this: IHookFunctions, productionUrl: string, claimedAt: number): Claim {
	const workflow = this.getWorkflow();
	return {
		id: `${workflow.id}/${this.getNode().id}`,
		workflowId: String(workflow.id),
		workflowName: workflow.name ?? String(workflow.id),
		productionUrl,
		claimedAt,
	};
}

async function registerProduction(
	this: IHookFunctions,
	apiKey: string,
	owner: Claim,
): Promise<void> {
	try {
		await registerAccountWebhook.call(
			this,
			withToken(owner.productionUrl, productionToken(apiKey, owner.productionUrl)),
		);
	} catch (error) {
		const message = `Could not point the Voice AI account webhook at workflow "${owner.workflowName}" (ID ${owner.workflowId}): ${(error as Error).message}`;
		throw new NodeOperationError(this.getNode(), message, {
			description: `That workflow is published and does not receive deliveries until the account webhook points at it again: unpublish and publish it once the service answers.`,
		});
	}
}

/** Publish, or n8n starting up: claim the account; register this workflow's URL when it holds it. */
export async function claimForPublish(this: IHookFunctions): Promise<void> {
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const staticData = this.getWorkflowStaticData('node');
	const { apiKey, key } = await accountOf.call(this);
	if (this.getNodeParameter('onDeactivation') === 'replacementUrl') {
		assertHttpUrl.call(
			this,
			this.getNodeParameter('replacementUrl') as string,
			'Replacement Webhook URL',
		);
	}
	const before = readRegistration(staticData);
	const wanted = claimOf.call(
		this,
		webhookUrl,
		before?.kind === 'production' ? (before.claimedAt ?? Date.now()) : Date.now(),
	);
	const activation = this.getActivationMode();
	const claimed = claim(key, wanted, {
		takeOver: this.getNodeParameter('whenHeld') === 'takeOver',
		restoring: activation === 'init' || activation === 'leadershipChange',
	});
	if (claimed.outcome === 'refused') {
		const { workflowName, workflowId } = claimed.holder;
		throw new NodeOperationError(
			this.getNode(),
			`This Voice AI account's webhook is held by the published workflow "${workflowName}" (ID ${workflowId})`,
			{
				description: `The service keeps one webhook URL per account, so only one published workflow can receive its deliveries. Unpublish "${workflowName}", or set "If Another Workflow Holds the Account" to "Take Over the Account Webhook" here (unpublishing this workflow later gives the account back).`,
			},
		);
	}
	const token = productionToken(apiKey, webhookUrl);
	if (claimed.outcome === 'register') {
		let registered = false;
		try {
			await registerAccountWebhook.call(this, withToken(webhookUrl, token));
			registered = true;
		} finally {
			if (!registered) release(key, wanted.id);
		}
	}
	saveRegistration(staticData, {
		kind: 'production',
		webhookUrl,
		tokenHash: hashToken(token),
		registeredAt: new Date().toISOString(),
		claimedAt: wanted.claimedAt,
		accountKey: key,
	});
}

/** Unpublish: hand the account to the published workflow before this one, or apply On Unpublish. */
export async function releaseOnUnpublish(this: IHookFunctions): Promise<void> {
	const staticData = this.getWorkflowStaticData('node');
	const record = readRegistration(staticData);
	const { apiKey, key } = await accountOf.call(this);
	const mine = claimOf.call(this, record?.webhookUrl ?? '', record?.claimedAt ?? Date.now());
	const released = release(key, mine.id);
	let done = false;
	try {
		if (released.outcome === 'handOver') {
			await registerProduction.call(this, apiKey, released.next);
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
		if (!done && released.outcome !== 'none') claim(key, mine, { takeOver: true, restoring: true });
	}
	forgetRegistration(staticData);
}

function testIdOf(this: IHookFunctions): string {
	return `${this.getWorkflow().id}/${this.getNode().id}/test`;
}

/** Execute step / Listen for test event: borrow the account for this node's test URL. */
export async function lendForTest(this: IHookFunctions): Promise<void> {
	const testUrl = this.getNodeWebhookUrl('default') as string;
	const { key } = await accountOf.call(this);
	if (!isKnown(key) && this.getNodeParameter('whenOwnerUnknown') !== 'listen') {
		throw new NodeOperationError(
			this.getNode(),
			"n8n cannot tell whether a published workflow receives this Voice AI account's deliveries",
			{
				description:
					'Nothing has published, unpublished or received a delivery for this account since n8n started, and listening would move the account\'s one webhook away from such a workflow for good. If a workflow with a Voice AI Trigger for this account is published, wait for its next delivery or unpublish and publish it, then listen again. If none is, set "Test Listen When the Holder Is Unknown" to "Listen Anyway".',
			},
		);
	}
	const token = testToken();
	lend(key, testIdOf.call(this));
	let registered = false;
	try {
		await registerAccountWebhook.call(this, withToken(testUrl, token));
		registered = true;
	} finally {
		if (!registered) giveBack(key, testIdOf.call(this));
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
	const { apiKey, key } = await accountOf.call(this);
	const holder = giveBack(key, testIdOf.call(this));
	if (holder !== undefined) await registerProduction.call(this, apiKey, holder);
	forgetRegistration(this.getWorkflowStaticData('node'));
}

/** Whether this published trigger holds the account in this process with the URL and key it has now. */
export async function holdsAccount(this: IHookFunctions): Promise<boolean> {
	const record = readRegistration(this.getWorkflowStaticData('node'));
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	if (record?.kind !== 'production' || record.webhookUrl !== webhookUrl) return false;
	const { apiKey, key } = await accountOf.call(this);
	const holder = holderOf(key);
	if (holder?.id !== claimOf.call(this, webhookUrl, 0).id || holder.productionUrl !== webhookUrl)
		return false;
	return record.tokenHash === hashToken(productionToken(apiKey, webhookUrl));
}
