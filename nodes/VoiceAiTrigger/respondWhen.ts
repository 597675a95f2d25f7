import type { INodeParameters, INodeProperties } from 'n8n-workflow';

/**
 * When the trigger answers the service. The values are n8n's own webhook response modes: n8n reads
 * the webhook description's `responseMode` as an expression, as it does for its Webhook node.
 */
const RESPOND_WHEN = 'respondWhen';
/** The default: answer as soon as the delivery is checked and queued. */
export const ON_RECEIVED = 'onReceived';

export const respondWhenProperty: INodeProperties = {
	displayName: 'Answer the Service',
	name: RESPOND_WHEN,
	type: 'options',
	default: ON_RECEIVED,
	description: 'When the service gets its answer for a delivery',
	options: [
		{
			name: 'When Received',
			value: ON_RECEIVED,
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

/** The webhook description's `responseMode`: n8n's response mode is the option's value. */
export const webhookResponseMode = `={{$parameter["${RESPOND_WHEN}"] || "${ON_RECEIVED}"}}`;

/**
 * The webhook description's `responseData`. When received, empty lets the node's own answer through;
 * when finished, "noData" keeps the workflow's output away from the service.
 */
export const webhookResponseData = `={{$parameter["${RESPOND_WHEN}"] === "lastNode" ? "noData" : ""}}`;

// n8n (2.40 on) resolves a description field declared under this registry symbol from the node's
// parameters without its expression engine, when the field still carries the template given here.
// Without it n8n evaluates both templates for every delivery, and with lazy isolate acquisition that
// builds an isolate per delivery (docs/trigger-performance.md). Older n8n ignores the symbol.
const NATIVE_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

const respondWhenOf = (parameters: INodeParameters): unknown => parameters[RESPOND_WHEN];

/** Spread into the trigger's webhook description: both fields, each with its native resolver. */
export const respondWhenWebhookFields = {
	responseMode: webhookResponseMode,
	responseData: webhookResponseData,
	[NATIVE_RESOLVERS]: {
		responseMode: {
			template: webhookResponseMode,
			resolve: (parameters: INodeParameters) => respondWhenOf(parameters) || ON_RECEIVED,
		},
		responseData: {
			template: webhookResponseData,
			resolve: (parameters: INodeParameters) =>
				respondWhenOf(parameters) === 'lastNode' ? 'noData' : '',
		},
	},
};

/**
 * The in-memory duplicate window to apply. When the answer waits for the run, a repeated delivery is
 * the service retrying a run that failed or was lost: remembering the first copy would drop the retry.
 */
export function memoryDedupeWindowMs(respondWhen: unknown, configuredMs: number): number {
	return respondWhen === 'lastNode' ? 0 : configuredMs;
}
