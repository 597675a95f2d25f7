import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { ENVELOPE_FIELDS, fieldAt, isPlainObject } from './delivery';

/** Key of the metadata object added next to the variables. */
export const METADATA_KEY = '_voiceAi';

export interface DeliveryContext {
	receivedAt: string;
	deliveryId?: string;
	attempt?: number;
}

const SOURCE_LABELS: Record<string, string> = {
	account_webhook: 'account webhook',
	chatbot: 'chatbot',
};

/**
 * The extracted variables of a delivery. Shapes the spec does not show are taken as they come:
 * `variables` as a JSON string is parsed; no `variables` key means the body itself (minus the
 * envelope fields) holds them; any other `variables` value is kept under `variables`.
 */
export function variablesOf(delivery: IDataObject): IDataObject {
	const variables = delivery.variables;
	if (isPlainObject(variables)) return variables;
	if (typeof variables === 'string') {
		const parsed = parseObject(variables);
		if (parsed !== undefined) return parsed;
	}
	if (variables === undefined) {
		const rest: IDataObject = {};
		for (const [key, value] of Object.entries(delivery)) {
			if (!(ENVELOPE_FIELDS as readonly string[]).includes(key)) rest[key] = value;
		}
		return rest;
	}
	return { variables };
}

export function metadataOf(delivery: IDataObject, context: DeliveryContext): IDataObject {
	const source = fieldAt(delivery, 'source');
	return {
		event: fieldAt(delivery, 'event') ?? null,
		conversationId: fieldAt(delivery, 'conversation_id') ?? null,
		source: source === undefined ? null : (SOURCE_LABELS[source] ?? source),
		agentId: fieldAt(delivery, 'agent_id') ?? null,
		chatbotId: fieldAt(delivery, 'chatbot_id') ?? null,
		completedAt: fieldAt(delivery, 'completed_at') ?? null,
		receivedAt: context.receivedAt,
		deliveryId: context.deliveryId ?? null,
		attempt: context.attempt ?? null,
	};
}

/** One output item per delivery: the variables plus `_voiceAi`, or the delivery exactly as received. */
export function toItem(
	delivery: IDataObject,
	context: DeliveryContext,
	shape: 'variables' | 'raw',
): INodeExecutionData {
	if (shape === 'raw') return { json: delivery };
	return { json: { ...variablesOf(delivery), [METADATA_KEY]: metadataOf(delivery, context) } };
}

function parseObject(text: string): IDataObject | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}
