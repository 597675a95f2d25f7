import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { headerValue } from '../VoiceAi/transport';
import { forgetUnlessAnswered, remember } from './dedupe';
import { checkFilter, fieldAt, idList, locatorText, unwrapEnvelope } from './delivery';
import { variablesItem } from './output';
import { DEFAULT_DEDUPE_FIELD, DEFAULT_DEDUPE_WINDOW_MINUTES, DEFAULT_OUTPUT } from './properties';
import { memoryDedupeWindowMs, ON_RECEIVED } from './respondWhen';

/**
 * The verified deliveries of one request (each as sent), filtered by source and checked for
 * duplicates, as the items of one run (or none); every delivery is answered 2xx, counted by what
 * became of it.
 */
export function startRuns(
	this: IWebhookFunctions,
	deliveries: IDataObject[],
): IWebhookResponseData {
	const headers = this.getHeaderData();
	const response = this.getResponseObject();
	const output = this.getNodeParameter('output', DEFAULT_OUTPUT) as 'variables' | 'raw';
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const chatbotIds = idList(options.chatbotIds as string | undefined);
	const agentIds = idList(locatorText(options.agentIds));
	const startUnidentified = options.withoutSourceId === 'start';
	const dedupeField = ((options.dedupeField as string | undefined) ?? DEFAULT_DEDUPE_FIELD).trim();
	const windowMs = memoryDedupeWindowMs(
		this.getNodeParameter('respondWhen', ON_RECEIVED),
		Number(options.dedupeWindowMinutes ?? DEFAULT_DEDUPE_WINDOW_MINUTES) * 60_000,
	);
	const scope = `${this.getWorkflow().id}/${this.getNode().id}/${this.getMode()}`;
	const now = Date.now();
	const context = {
		receivedAt: new Date(now).toISOString(),
		deliveryId: headerValue(headers['x-voiceai-delivery']),
		attempt: Number(headerValue(headers['x-voiceai-attempt'])) || undefined,
	};
	const batch = deliveries.length > 1;

	const counts = { duplicates: 0, filtered: 0, unidentified: 0 };
	const items = [];
	const recorded: Array<[string, number]> = [];
	for (const [index, sent] of deliveries.entries()) {
		const delivery = unwrapEnvelope(sent);
		const filter = checkFilter(delivery, chatbotIds, agentIds);
		if (filter === 'filtered' || (filter === 'unidentified' && !startUnidentified)) {
			counts[filter]++;
			continue;
		}
		const id = dedupeIdOf(delivery, dedupeField, context.deliveryId, batch ? index : undefined);
		if (id !== undefined && windowMs > 0) {
			const expiresAt = remember(scope, id, windowMs, now);
			if (expiresAt === undefined) {
				counts.duplicates++;
				continue;
			}
			recorded.push([id, expiresAt]);
		}
		items.push(output === 'raw' ? { json: sent } : variablesItem(delivery, context));
	}
	forgetUnlessAnswered(response, scope, recorded);

	// Dropped deliveries are still answered 2xx, or the service would retry them.
	if (items.length === 0) {
		return { webhookResponse: { received: true, started: false, ...counts } };
	}
	return {
		workflowData: [items],
		webhookResponse: { received: true, started: true, items: items.length, ...counts },
	};
}

/**
 * What identifies a delivery for duplicate detection: the configured field, or else the service's
 * delivery id header (with the position in a batch, since one request then carries several).
 */
function dedupeIdOf(
	delivery: IDataObject,
	field: string,
	deliveryId: string | undefined,
	index: number | undefined,
): string | undefined {
	const value = field === '' ? undefined : fieldAt(delivery, field);
	if (value !== undefined) return `field:${value}`;
	if (field === '' || deliveryId === undefined || deliveryId === '') return undefined;
	return index === undefined ? `delivery:${deliveryId}` : `delivery:${deliveryId}#${index}`;
}
