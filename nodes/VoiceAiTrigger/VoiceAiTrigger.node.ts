import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { searchAgents } from '../VoiceAi/listSearch/searchAgents';
import { isDuplicate } from './dedupe';
import { fieldAt, idList, locatorText, passesFilter, readDeliveries } from './delivery';
import { toItem } from './output';
import { triggerProperties } from './properties';
import {
	apiKeyOf,
	assertHttpUrl,
	forgetRegistration,
	hashToken,
	productionToken,
	productionUrlOf,
	readRegistration,
	registerAccountWebhook,
	saveRegistration,
	testToken,
	TOKEN_PARAMETER,
	tokenMatches,
	withToken,
} from './registration';

export class VoiceAiTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI Trigger',
		name: 'voiceAiTrigger',
		icon: { light: 'file:voiceAiTrigger.svg', dark: 'file:voiceAiTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["output"] === "raw" ? "Raw deliveries" : "Conversation variables" }}',
		description: 'Starts the workflow with the variables extracted from each completed Voice AI conversation',
		defaults: { name: 'Voice AI Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceAiApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Without it n8n answers a started delivery with its default, the literal text "firstEntryJson";
				// empty lets the node's own webhookResponse through.
				responseData: '',
				path: 'webhook',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		listSearch: { searchAgents },
	};

	webhookMethods = {
		default: {
			/**
			 * The service cannot be asked which URL it holds, so only static data can answer. After a
			 * restart the answer is always "no": the account may have been pointed elsewhere while n8n
			 * was down (a test listen cut short, another workflow), and registering again is harmless.
			 */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const activation = this.getActivationMode();
				if (activation === 'init' || activation === 'leadershipChange') return false;
				const record = readRegistration(this.getWorkflowStaticData('node'));
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				if (record?.kind !== 'production' || record.webhookUrl !== webhookUrl) return false;
				const token = productionToken(await apiKeyOf.call(this), webhookUrl);
				return record.tokenHash === hashToken(token);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const isTest = this.getMode() === 'manual';
				if (isTest && this.getNodeParameter('afterTestListen') === 'restoreProduction') {
					if (productionUrlOf(webhookUrl) === undefined) {
						throw new NodeOperationError(
							this.getNode(),
							'Cannot work out the production URL from this test URL, so it could not be restored after the test',
							{ description: 'n8n uses custom webhook endpoints here. Set After Test Listen to "Leave Account Webhook As Is".' },
						);
					}
				}
				if (this.getNodeParameter('onDeactivation') === 'replacementUrl') {
					assertHttpUrl.call(this, this.getNodeParameter('replacementUrl') as string, 'Replacement Webhook URL');
				}
				const token = isTest ? testToken() : productionToken(await apiKeyOf.call(this), webhookUrl);
				await registerAccountWebhook.call(this, withToken(webhookUrl, token));
				saveRegistration(this.getWorkflowStaticData('node'), {
					kind: isTest ? 'test' : 'production',
					webhookUrl,
					tokenHash: hashToken(token),
					registeredAt: new Date().toISOString(),
				});
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				const record = readRegistration(staticData);
				if (record === undefined) return true;
				if (record.kind === 'test') {
					if (this.getNodeParameter('afterTestListen') === 'restoreProduction') {
						const productionUrl = productionUrlOf(record.webhookUrl);
						if (productionUrl === undefined) {
							throw new NodeOperationError(this.getNode(), 'Cannot work out the production URL from the test URL');
						}
						const token = productionToken(await apiKeyOf.call(this), productionUrl);
						await registerAccountWebhook.call(this, withToken(productionUrl, token));
					}
				} else if (this.getNodeParameter('onDeactivation') === 'replacementUrl') {
					const replacementUrl = this.getNodeParameter('replacementUrl') as string;
					assertHttpUrl.call(this, replacementUrl, 'Replacement Webhook URL');
					await registerAccountWebhook.call(this, replacementUrl);
				}
				forgetRegistration(staticData);
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

		if (!(await hasValidToken.call(this))) return refuse(401, 'Missing or wrong token');

		const headers = this.getHeaderData();
		const request = this.getRequestObject() as { rawBody?: Buffer };
		const read = readDeliveries(headers['content-type'], this.getBodyData(), request.rawBody);
		if ('problem' in read) return refuse(400, read.problem);

		const output = this.getNodeParameter('output', 'variables') as 'variables' | 'raw';
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const chatbotIds = idList(options.chatbotIds as string | undefined);
		const agentIds = idList(locatorText(options.agentIds));
		const dedupeField = ((options.dedupeField as string | undefined) ?? 'conversation_id').trim();
		const windowMs = Number(options.dedupeWindowMinutes ?? 60) * 60_000;
		const scope = `${this.getWorkflow().id}/${this.getNode().id}/${this.getMode()}`;
		const now = Date.now();
		const context = {
			receivedAt: new Date(now).toISOString(),
			deliveryId: headerValue(headers['x-voiceai-delivery']),
			attempt: Number(headerValue(headers['x-voiceai-attempt'])) || undefined,
		};

		let filtered = 0;
		let duplicates = 0;
		const items = [];
		for (const delivery of read.deliveries) {
			if (!passesFilter(delivery, chatbotIds, agentIds)) {
				filtered++;
				continue;
			}
			const id = dedupeField === '' ? undefined : fieldAt(delivery, dedupeField);
			if (id !== undefined && windowMs > 0 && isDuplicate(scope, id, windowMs, now)) {
				duplicates++;
				continue;
			}
			items.push(toItem(delivery, context, output));
		}

		// Dropped deliveries are still answered 2xx, or the service would retry them.
		if (items.length === 0) {
			return { webhookResponse: { received: true, started: false, duplicates, filtered } };
		}
		return {
			workflowData: [items],
			webhookResponse: { received: true, started: true, items: items.length, duplicates, filtered },
		};
	}
}

/**
 * Production accepts the token it registered (static data) and the one it would register now:
 * after an API key rotation, a test listen restores the URL with the new key's token.
 */
async function hasValidToken(this: IWebhookFunctions): Promise<boolean> {
	const given = (this.getQueryData() as IDataObject)[TOKEN_PARAMETER];
	if (typeof given !== 'string' || given === '') return false;
	const record = readRegistration(this.getWorkflowStaticData('node'));
	if (record !== undefined && tokenMatches(given, record.tokenHash)) return true;
	if (this.getMode() === 'manual') return false;
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	return tokenMatches(given, hashToken(productionToken(await apiKeyOf.call(this), webhookUrl)));
}

function headerValue(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}
