import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { isPlainObject, setOwn } from '../VoiceAi/transport';
import { ENVELOPE_FIELDS, fieldAt, MAX_NESTING_DEPTH, nestsDeeperThan } from './delivery';

/** Key of the metadata object added next to the variables. */
const METADATA_KEY = '_voiceAi';

interface DeliveryContext {
	receivedAt: string;
	deliveryId?: string;
	attempt?: number;
}

const SOURCE_LABELS: Record<string, string> = {
	account_webhook: 'account webhook',
	chatbot: 'chatbot',
};

/** Key of the object holding every field of the delivery that is not a variable. */
const CONVERSATION_KEY = 'conversation';

/**
 * The extracted variables of a delivery and the fields left over. Shapes the spec does not show are
 * taken as they come: `variables` as a JSON string holding an object is parsed (unless it nests
 * deeper than a body may); no `variables` key means the body itself (minus the envelope fields) holds
 * them; any other `variables` value is kept under `variables`. Fields are set as own properties, so a
 * field named `__proto__` stays a field.
 */
function splitDelivery(delivery: IDataObject): {
	variables: IDataObject;
	rest: IDataObject;
} {
	const variables = Object.hasOwn(delivery, 'variables') ? delivery.variables : undefined;
	const rest: IDataObject = {};
	if (variables === undefined) {
		const taken: IDataObject = {};
		for (const [key, value] of Object.entries(delivery)) {
			setOwn((ENVELOPE_FIELDS as readonly string[]).includes(key) ? rest : taken, key, value);
		}
		return { variables: taken, rest };
	}
	for (const [key, value] of Object.entries(delivery)) {
		if (key !== 'variables') setOwn(rest, key, value);
	}
	if (isPlainObject(variables)) return { variables, rest };
	if (typeof variables === 'string') {
		const parsed = parseObject(variables);
		if (parsed !== undefined) return { variables: parsed, rest };
	}
	return { variables: { variables }, rest };
}

function metadataOf(delivery: IDataObject, context: DeliveryContext): IDataObject {
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

/**
 * The Variables and Metadata item of one delivery (out of its envelope): the variables as fields,
 * `_voiceAi` (normalised metadata) and `conversation` (every other field exactly as delivered).
 * A variable named like one of the two keys is kept whole under `conversation.variables`.
 */
export function variablesItem(delivery: IDataObject, context: DeliveryContext): INodeExecutionData {
	const { variables, rest } = splitDelivery(delivery);
	const clash =
		Object.hasOwn(variables, METADATA_KEY) || Object.hasOwn(variables, CONVERSATION_KEY);
	return {
		json: {
			...variables,
			[METADATA_KEY]: metadataOf(delivery, context),
			[CONVERSATION_KEY]: clash ? { ...rest, variables } : rest,
		},
	};
}

function parseObject(text: string): IDataObject | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return isPlainObject(value) && !nestsDeeperThan(value, MAX_NESTING_DEPTH) ? value : undefined;
	} catch {
		return undefined;
	}
}
