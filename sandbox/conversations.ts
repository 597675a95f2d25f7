import type { Deliverer } from './delivery';
import { badField, notFound } from './errors';
import { newId } from './keys';
import type { Delivery, DeliveryPayload, Org } from './types';
import { has, type JsonObject, object, objectBody, text } from './validate';

export interface ConversationResult {
	conversationId: string;
	deliveries: Delivery[];
}

/**
 * A completed conversation: an agent conversation goes to the account webhook; a chatbot conversation goes to
 * the chatbot's webhook_url and to the account webhook, one delivery each, when they are set.
 */
export function completeConversation(
	deliverer: Deliverer,
	org: Org,
	rawBody: unknown,
): ConversationResult {
	const body: JsonObject = objectBody(rawBody, [
		'agentId',
		'chatbotId',
		'variables',
		'conversationId',
	]);
	if (has(body, 'agentId') && has(body, 'chatbotId'))
		throw badField('chatbotId', 'cannot be given with agentId');
	const agentId = has(body, 'agentId') ? text(body.agentId, 'agentId', { max: 100 }) : null;
	const chatbotId = has(body, 'chatbotId') ? text(body.chatbotId, 'chatbotId', { max: 100 }) : null;
	const variables = has(body, 'variables') ? object(body.variables, 'variables') : {};
	const conversationId = has(body, 'conversationId')
		? text(body.conversationId, 'conversationId', { max: 100 })
		: newId('conv', 20);
	if (agentId !== null && !org.agents.some((agent) => agent.id === agentId))
		throw notFound('agent');
	const chatbot = chatbotId !== null ? org.chatbots.get(chatbotId) : undefined;
	if (chatbotId !== null && !chatbot) throw notFound('chatbot');

	const completedAt = new Date().toISOString();
	const payload = (source: DeliveryPayload['source']): DeliveryPayload => ({
		event: 'conversation.completed',
		conversation_id: conversationId,
		source,
		agent_id: agentId,
		chatbot_id: chatbotId,
		completed_at: completedAt,
		variables,
	});
	const deliveries: Delivery[] = [];
	if (chatbot?.webhook_url)
		deliveries.push(deliverer.enqueue(org, 'chatbot', chatbot.webhook_url, payload('chatbot')));
	if (org.webhook)
		deliveries.push(deliverer.enqueue(org, 'account', org.webhook, payload('account_webhook')));
	return { conversationId, deliveries };
}
