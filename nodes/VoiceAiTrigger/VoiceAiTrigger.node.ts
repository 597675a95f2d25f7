import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchAgents } from '../VoiceAi/listSearch/searchAgents';
import { headerValue } from '../VoiceAi/transport';
import { forgetUnlessAnswered, remember } from './dedupe';
import { checkFilter, fieldAt, idList, locatorText, readRequestDeliveries } from './delivery';
import { toItem } from './output';
import {
	DEFAULT_DEDUPE_FIELD,
	DEFAULT_DEDUPE_WINDOW_MINUTES,
	DEFAULT_OUTPUT,
	triggerProperties,
} from './properties';
import { holdsAccount, noteDelivery, onCreate, onDelete } from './ownership';
import {
	apiKeyOf,
	hashToken,
	productionToken,
	readRegistration,
	type Registration,
	TOKEN_PARAMETER,
	tokenMatches,
} from './registration';
import { memoryDedupeWindowMs, ON_RECEIVED, respondWhenWebhookFields } from './respondWhen';

export class VoiceAiTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI Trigger',
		name: 'voiceAiTrigger',
		icon: { light: 'file:voiceAiTrigger.svg', dark: 'file:voiceAiTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1. n8n evaluates an expression (a version-1 Webhook node's binaryData option)
		// for every request to a start node of version 1, which costs an expression isolate per
		// delivery; from 1.1 on it does not, and leaves bodies other than JSON, text, form and XML
		// for the node to read (see webhook()). docs/trigger-performance.md has the measurements.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["output"] === "raw" ? "Raw deliveries" : "Conversation variables" }}',
		description:
			'Starts the workflow with the variables extracted from each completed Voice AI conversation',
		defaults: { name: 'Voice AI Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceAiApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// responseData: without it n8n answers a started delivery with the literal text "firstEntryJson".
				...respondWhenWebhookFields,
				path: 'webhook',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		listSearch: { searchAgents },
	};

	/** Who holds the organization's one webhook: ./ownership.ts and its table of transitions. */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await holdsAccount.call(this);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				await onCreate.call(this);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				await onDelete.call(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = this.getResponseObject();
		const refuse = (status: number, message: string): IWebhookResponseData => {
			response.status(status).json({ error: { status, message } });
			return { noWebhookResponse: true };
		};

		const record = readRegistration(this.getWorkflowStaticData('node'));
		if (!(await hasValidToken.call(this, record))) return refuse(401, 'Missing or wrong token');
		await noteDelivery.call(this, record);

		const headers = this.getHeaderData();
		// Version 1.1: n8n leaves some bodies (an application/*+json type, no type) for the node to read.
		const read = await readRequestDeliveries(headers['content-type'], this.getRequestObject(), () =>
			this.getBodyData(),
		);
		if ('problem' in read) return refuse(read.status, read.problem);

		const output = this.getNodeParameter('output', DEFAULT_OUTPUT) as 'variables' | 'raw';
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const chatbotIds = idList(options.chatbotIds as string | undefined);
		const agentIds = idList(locatorText(options.agentIds));
		const startUnidentified = options.withoutSourceId === 'start';
		const dedupeField = (
			(options.dedupeField as string | undefined) ?? DEFAULT_DEDUPE_FIELD
		).trim();
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
		const batch = read.deliveries.length > 1;

		const counts = { duplicates: 0, filtered: 0, unidentified: 0 };
		const items = [];
		const recorded: Array<[string, number]> = [];
		for (const [index, delivery] of read.deliveries.entries()) {
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
			items.push(toItem(delivery, context, output));
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

/**
 * Production accepts the token it registered (static data) and the one it would register now:
 * after an API key rotation, a test listen restores the URL with the new key's token.
 */
async function hasValidToken(
	this: IWebhookFunctions,
	record: Registration | undefined,
): Promise<boolean> {
	const given = (this.getQueryData() as IDataObject)[TOKEN_PARAMETER];
	if (typeof given !== 'string' || given === '') return false;
	if (record !== undefined && tokenMatches(given, record.tokenHash)) return true;
	if (this.getMode() === 'manual') return false;
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	return tokenMatches(given, hashToken(productionToken(await apiKeyOf.call(this), webhookUrl)));
}
