import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { QueuedClaim } from './registration';

/** The errors ownership decisions fail with (ownership.ts says when), and what it writes to n8n's log. */

const fail = (node: INode, message: string, description: string, itemIndex?: number) =>
	new NodeOperationError(node, message, { description, itemIndex });
const named = ({ workflowName, workflowId }: QueuedClaim) => `"${workflowName}" (ID ${workflowId})`;
const SINCE_START =
	'n8n keeps no record of who holds the account across a restart, and nothing has published, unpublished or received a delivery for this organization since n8n started';

export const refusal = {
	/** A publish while another published workflow holds the account (or may: `unsure`). */
	heldByAnother: (node: INode, holder: QueuedClaim, unsure: boolean) =>
		unsure
			? fail(
					node,
					`This Voice AI account's webhook may be held by the published workflow ${named(holder)}: n8n cannot tell whether this credential's key reaches the same organization`,
					`n8n tells the keys of one organization apart from another's by the agents they list, and here neither tells. Use the credential "${holder.workflowName}" uses, or create an agent in this organization, then publish again. Taking over is refused too: giving the account back could point another organization's webhook at "${holder.workflowName}".`,
				)
			: fail(
					node,
					`This Voice AI account's webhook is held by the published workflow ${named(holder)}`,
					`The service keeps one webhook URL per organization, whatever key reaches it, so only one published workflow can receive its deliveries. Unpublish "${holder.workflowName}", or set "If Another Workflow Holds It" to "Take Over the Account Webhook" here (unpublishing this workflow later gives the account back).`,
				),
	/** A test listen could move the account away from a workflow this process does not know. */
	holderUnknown: (node: INode) =>
		fail(
			node,
			"n8n cannot tell whether a published workflow receives this Voice AI account's deliveries",
			'Nothing has published, unpublished or received a delivery for this organization since n8n started, and listening would move its one webhook away from such a workflow for good. If a published workflow has a Voice AI Trigger for it, wait for its next delivery or unpublish and publish it, then listen again. If none has, set "If Nobody Can Tell Who Holds It" to "Go Ahead".',
		),
	/** The workflow handed back to stays published without deliveries until it is published again. */
	handBackFailed: (node: INode, owner: QueuedClaim, error: Error) =>
		fail(
			node,
			`Could not point the Voice AI account webhook at workflow ${named(owner)}: ${error.message}`,
			'That workflow is published and does not receive deliveries until the account webhook points at it again: unpublish and publish it once the service answers.',
		),
	/** A publish in a process that has not seen the organization: another published workflow may hold it. */
	publishUnknown: (node: INode) =>
		fail(
			node,
			"n8n cannot tell whether another published workflow receives this Voice AI account's conversations",
			`${SINCE_START}, and publishing would move its one webhook away from such a workflow without a word. If a published workflow has a Voice AI Trigger for this organization, wait for its next delivery (or unpublish and publish it), then publish again. If none has, set "If Nobody Can Tell Who Holds It" to "Go Ahead" (or "If Another Workflow Holds It" to "Take Over the Account Webhook") and publish again.`,
		),
	/** An unpublish whose record asks to point the account elsewhere, when nobody can tell whether it still may. */
	unpublishUnknown: (node: INode, queued: QueuedClaim[], toUrl: boolean) => {
		const waiting = queued[queued.length - 1];
		const remedy = waiting
			? `If "${waiting.workflowName}" should receive, unpublish and publish it.`
			: toUrl
				? 'If no other published workflow receives, run Webhook Set with the Replacement Webhook URL.'
				: '';
		return fail(
			node,
			`The Voice AI account webhook was not pointed ${waiting ? `back to the workflow ${named(waiting)}, which this one took it over from` : 'at the Replacement Webhook URL of On Unpublish'}: n8n cannot tell whether this workflow still holds it`,
			`${SINCE_START}; another workflow may have taken the account over from this one, and pointing it elsewhere would cut that workflow off. The account may still point at this workflow's URL. ${remedy}`.trim(),
		);
	},
	/** A claim rebuilt from a record after a restart was made with another key: its token cannot be derived. */
	handBackNeedsKey: (node: INode, holder: QueuedClaim) =>
		fail(
			node,
			`Could not point the Voice AI account webhook back at workflow ${named(holder)}: it claimed the account with another API key, and n8n has restarted since`,
			`The token of that workflow's address comes from its own key, which this workflow does not hold. The account still points here. Unpublish and publish "${holder.workflowName}" so that it receives again.`,
		),
	/** Webhook Set while a published trigger holds the organization (or may: `unsure`). */
	setWhileHeld: (node: INode, holder: QueuedClaim, unsure: boolean, itemIndex: number) =>
		fail(
			node,
			`The Voice AI account's webhook ${unsure ? 'may be held' : 'is held'} by the published workflow ${named(holder)}: setting it would cut that workflow off`,
			`The service keeps one webhook URL per organization, whatever key reaches it${unsure ? ' (n8n cannot tell whether this key reaches the same one)' : ''}, and "${holder.workflowName}" receives its conversations through it. The webhook was not changed. Unpublish "${holder.workflowName}" first, or set "If a Published Trigger Holds It" to "Take It Over" here.`,
			itemIndex,
		),
	/** Webhook Set in a process that has not seen the organization (after a start; a queue-mode worker). */
	setUnknown: (node: INode, itemIndex: number) =>
		fail(
			node,
			"n8n cannot tell whether a published workflow receives this Voice AI account's conversations, so the webhook was not set",
			'This n8n process has not seen a Voice AI Trigger for this organization since it started (in queue mode, workers never do), and setting the webhook would cut such a workflow off without a word. The webhook was not changed. If no published workflow has a Voice AI Trigger for it, set "If a Published Trigger Holds It" to "Take It Over".',
			itemIndex,
		),
	/** Logged: a claim whose unpublish failed, forgotten as the holder. */
	ghostForgotten: (ghost: QueuedClaim) =>
		`Voice AI: workflow ${named(ghost)} could not point the account webhook elsewhere when it was unpublished, so the account may still point at its URL; n8n has forgotten it as the holder. Unpublish and publish the workflow that should receive.`,
	/** Logged: a claim a record queued whose workflow n8n no longer serves (unpublished before the restart). */
	goneFromQueue: (claim: QueuedClaim) =>
		`Voice AI: workflow ${named(claim)} was queued for the account webhook before n8n restarted, but n8n no longer serves its URL (unpublished): the webhook is not handed back to it.`,
};
