import type { INodeProperties } from 'n8n-workflow';

/**
 * When the trigger answers the service. The values are n8n's own webhook response modes: n8n reads
 * the webhook description's `responseMode` as an expression, as it does for its Webhook node.
 */
export const RESPOND_WHEN = 'respondWhen';

export type RespondWhen = 'onReceived' | 'lastNode';

export const respondWhenProperty: INodeProperties = {
	displayName: 'Answer the Service',
	name: RESPOND_WHEN,
	type: 'options',
	default: 'onReceived',
	description: 'When the service gets its answer for a delivery',
	options: [
		{
			name: 'When Received',
			value: 'onReceived',
			description:
				'Answer 200 as soon as the delivery is checked and queued. A run that fails or is lost later (a worker killed) is not delivered again.',
		},
		{
			name: 'When the Workflow Has Finished',
			value: 'lastNode',
			description:
				'Answer 200 only after the run succeeded; a failed or lost run gets an error or no answer, so a service that retries sends the delivery again. Turns off the in-memory duplicate check (use Voice AI > Conversation > Pass Once).',
		},
	],
};

/** For the webhook description: `responseMode: webhookResponseMode`. */
export const webhookResponseMode = `={{ $parameter["${RESPOND_WHEN}"] || "onReceived" }}`;

/**
 * For the webhook description: `responseData: webhookResponseData`. When received, empty lets the
 * node's own answer through; when finished, "noData" keeps the workflow's output away from the service.
 */
export const webhookResponseData = `={{ $parameter["${RESPOND_WHEN}"] === "lastNode" ? "noData" : "" }}`;

/**
 * The in-memory duplicate window to apply. When the answer waits for the run, a repeated delivery is
 * the service retrying a run that failed or was lost: remembering the first copy would drop the retry.
 */
export function memoryDedupeWindowMs(respondWhen: unknown, configuredMs: number): number {
	return respondWhen === 'lastNode' ? 0 : configuredMs;
}
