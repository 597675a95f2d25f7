import type { WorkflowExecuteMode } from 'n8n-workflow';

// Webhook Set decides by how n8n started the run whether a person is there to see what it changes.

/** "Execute workflow" in the editor, and a Retry of an execution from the executions list. */
export function startedByHand(mode: WorkflowExecuteMode): boolean {
	return mode === 'manual' || mode === 'retry';
}

const UNKNOWN_HOLDER =
	'This n8n process has not seen a Voice AI Trigger for this organization since it started (in queue mode, workers never do), and setting the webhook would cut such a workflow off without a word. The webhook was not changed.';

/**
 * What to do when a run nobody watches cannot tell who holds the webhook. A sub-workflow ('integrated')
 * cannot be run by hand itself, and n8n does not tell the node how its parent was started.
 */
export function unwatchedRunAdvice(mode: WorkflowExecuteMode): string {
	if (mode === 'integrated') {
		return `${UNKNOWN_HOLDER} This run is a sub-workflow (Execute Workflow), and n8n does not tell the node whether its parent was started by hand. If no published workflow has a Voice AI Trigger for this organization, set "If a Published Trigger Holds It" to "Take It Over" on this node; or move Webhook Set into the parent workflow and run that by hand in the editor.`;
	}
	return `${UNKNOWN_HOLDER} If no published workflow has a Voice AI Trigger for it, set "If a Published Trigger Holds It" to "Take It Over"; or run this workflow by hand in the editor (or retry this execution from the executions list).`;
}
