import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Claim } from './ownership';
import type { QueuedClaim } from './registration';

/** The errors ownership decisions fail with (ownership.ts says when), and what it writes to n8n's log. */

/** 'refuse' and 'refuseUnsure': another published workflow holds the account. */
export function heldByAnother(node: INode, holder: Claim, unsure: boolean): NodeOperationError {
	const { workflowName, workflowId } = holder;
	if (unsure) {
		return new NodeOperationError(
			node,
			`This Voice AI account's webhook may be held by the published workflow "${workflowName}" (ID ${workflowId}): n8n cannot tell whether this credential's key reaches the same organization`,
			{
				description: `n8n tells the keys of one organization apart from another's by the agents they list, and here neither tells. Use the credential "${workflowName}" uses, or create an agent in this organization, then publish again. Taking over is refused too: giving the account back could point another organization's webhook at "${workflowName}".`,
			},
		);
	}
	return new NodeOperationError(
		node,
		`This Voice AI account's webhook is held by the published workflow "${workflowName}" (ID ${workflowId})`,
		{
			description: `The service keeps one webhook URL per organization, whatever key reaches it, so only one published workflow can receive its deliveries. Unpublish "${workflowName}", or set "If Another Workflow Holds It" to "Take Over the Account Webhook" here (unpublishing this workflow later gives the account back).`,
		},
	);
}

/** 'refuseUnknown': a test listen could move the account away from a workflow this process does not know. */
export function holderUnknown(node: INode): NodeOperationError {
	return new NodeOperationError(
		node,
		"n8n cannot tell whether a published workflow receives this Voice AI account's deliveries",
		{
			description:
				'Nothing has published, unpublished or received a delivery for this organization since n8n started, and listening would move its one webhook away from such a workflow for good. If a published workflow has a Voice AI Trigger for it, wait for its next delivery or unpublish and publish it, then listen again. If none has, set "If Nobody Can Tell Who Holds It" to "Go Ahead".',
		},
	);
}

/** 'handBack' failed: the workflow handed to stays published without deliveries until it is published again. */
export function handBackFailed(node: INode, owner: Claim, error: Error): NodeOperationError {
	const message = `Could not point the Voice AI account webhook at workflow "${owner.workflowName}" (ID ${owner.workflowId}): ${error.message}`;
	return new NodeOperationError(node, message, {
		description: `That workflow is published and does not receive deliveries until the account webhook points at it again: unpublish and publish it once the service answers.`,
	});
}

const SINCE_START =
	'n8n keeps no record of who holds the account across a restart, and nothing has published, unpublished or received a delivery for this organization since n8n started';

/** 'refuseUnknown' at a publish: another published workflow may hold the account. */
export function publishUnknown(node: INode): NodeOperationError {
	return new NodeOperationError(
		node,
		"n8n cannot tell whether another published workflow receives this Voice AI account's conversations",
		{
			description: `${SINCE_START}, and publishing would move its one webhook away from such a workflow without a word. If a published workflow has a Voice AI Trigger for this organization, wait for its next delivery (or unpublish and publish it), then publish again. If none has, set "If Nobody Can Tell Who Holds It" to "Go Ahead" (or "If Another Workflow Holds It" to "Take Over the Account Webhook") and publish again.`,
		},
	);
}

/** 'refuseUnlessNothing' at an unpublish: the record asks to point the account elsewhere, and nobody can tell whether it still may. */
export function unpublishUnknown(
	node: INode,
	queued: QueuedClaim[],
	toUrl: boolean,
): NodeOperationError {
	const waiting = queued[queued.length - 1];
	const wanted = waiting
		? `back to the workflow "${waiting.workflowName}" (ID ${waiting.workflowId}), which this one took it over from`
		: 'at the Replacement Webhook URL of On Unpublish';
	return new NodeOperationError(
		node,
		`The Voice AI account webhook was not pointed ${wanted}: n8n cannot tell whether this workflow still holds it`,
		{
			description:
				`${SINCE_START}; another workflow may have taken the account over from this one, and pointing it elsewhere would cut that workflow off. The account may still point at this workflow's URL. ${waiting ? `If "${waiting.workflowName}" should receive, unpublish and publish it.` : toUrl ? 'If no other published workflow receives, run Webhook Set with the Replacement Webhook URL.' : ''}`.trim(),
		},
	);
}

/** A claim rebuilt from a record after a restart was made with another key: its token cannot be derived. */
export function handBackNeedsKey(node: INode, holder: Claim): NodeOperationError {
	return new NodeOperationError(
		node,
		`Could not point the Voice AI account webhook back at workflow "${holder.workflowName}" (ID ${holder.workflowId}): it claimed the account with another API key, and n8n has restarted since`,
		{
			description: `The token of that workflow's address comes from its own key, which this workflow does not hold. The account still points here. Unpublish and publish "${holder.workflowName}" so that it receives again.`,
		},
	);
}

/** A claim whose unpublish failed, forgotten as the holder: written to n8n's log once. */
export function ghostForgotten(ghost: Claim): string {
	return `Voice AI: workflow "${ghost.workflowName}" (ID ${ghost.workflowId}) could not point the account webhook elsewhere when it was unpublished, so the account may still point at its URL; n8n has forgotten it as the holder. Unpublish and publish the workflow that should receive.`;
}

/** Webhook Set while a published trigger holds the organization (or may: `unsure`). */
export function setWhileHeld(
	node: INode,
	holder: Claim,
	unsure: boolean,
	itemIndex: number,
): NodeOperationError {
	const { workflowName, workflowId } = holder;
	return new NodeOperationError(
		node,
		`The Voice AI account's webhook ${unsure ? 'may be held' : 'is held'} by the published workflow "${workflowName}" (ID ${workflowId}): setting it would cut that workflow off`,
		{
			itemIndex,
			description: `The service keeps one webhook URL per organization, whatever key reaches it${unsure ? ' (n8n cannot tell whether this key reaches the same one)' : ''}, and "${workflowName}" receives its conversations through it. The webhook was not changed. Unpublish "${workflowName}" first, or set "If a Published Trigger Holds It" to "Take It Over" here.`,
		},
	);
}

/** Webhook Set in a process that has not seen the organization (after a start; a queue-mode worker). */
export function setUnknown(node: INode, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		node,
		"n8n cannot tell whether a published workflow receives this Voice AI account's conversations, so the webhook was not set",
		{
			itemIndex,
			description:
				'This n8n process has not seen a Voice AI Trigger for this organization since it started (in queue mode, workers never do), and setting the webhook would cut such a workflow off without a word. The webhook was not changed. If no published workflow has a Voice AI Trigger for it, set "If a Published Trigger Holds It" to "Take It Over".',
		},
	);
}

/** A claim a record queued whose workflow n8n no longer serves (unpublished before the restart). */
export function goneFromQueue(claim: Claim): string {
	return `Voice AI: workflow "${claim.workflowName}" (ID ${claim.workflowId}) was queued for the account webhook before n8n restarted, but n8n no longer serves its URL (unpublished): the webhook is not handed back to it.`;
}
