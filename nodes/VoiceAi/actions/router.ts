import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readRequestOptions } from './requestOptions';
import {
	RequestsStopped,
	Secrets,
	isPlainObject,
	isUnusableCredentialError,
	requestGate,
	voiceAiApiRequest,
	voiceAiCredential,
} from '../transport';
import { earlierTries } from './earlierTries';
import { failedItem, unusableResult } from './failedItem';
import { operationOf } from './registry';
import type { ApiCall } from './types';

const causeOf = (error: unknown): unknown => (error as { cause?: unknown })?.cause;

/**
 * Validates every item first (nothing is sent while any item is invalid, unless Continue On Fail turns
 * it into an error item), then sends up to Concurrency items at once (RequestGate); items on one record
 * (recordOf) run one at a time. Output keeps input order. A hard failure closes the gate: requests not
 * yet started are not sent. With n8n's Retry On Fail, a later try sends only the items that did not
 * succeed. The one place secrets leave: every error and output item goes out through `secrets` here.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operationOf(resource, operationName);
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	}
	const { concurrency, retry } = readRequestOptions(this);
	const gate = requestGate(concurrency, this.getExecutionCancelSignal());
	const continueOnFail = this.continueOnFail();
	const results: INodeExecutionData[][] = new Array(items.length);
	const secrets = new Secrets();
	const earlier = earlierTries(this, items);
	const failedItems = new Set<INodeExecutionData>();
	/** Throws the error (without secrets) or, with Continue On Fail, makes it the item's output. */
	const fail = (caught: unknown, itemIndex: number, stops = false) => {
		const error =
			caught instanceof NodeApiError || caught instanceof NodeOperationError
				? caught
				: new NodeOperationError(this.getNode(), caught as Error, { itemIndex });
		if (!continueOnFail || stops) {
			gate.close();
			throw secrets.redactError(error);
		}
		const item = failedItem(this, error, itemIndex);
		failedItems.add(item);
		results[itemIndex] = [item];
	};

	const inputs: unknown[] = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			inputs[itemIndex] = await operation.validate.call(this, itemIndex);
			secrets.collect(inputs[itemIndex]);
		} catch (caught) {
			// A refusal may show a value back (a webhook URL with its token): the raw parameters' secrets go too.
			secrets.collect(
				operation.description.map(({ name }) => {
					try {
						return this.getNodeParameter(name, itemIndex, undefined);
					} catch {
						return undefined;
					}
				}),
			);
			fail(caught, itemIndex);
		}
		// Sent successfully by an earlier try of this run (Retry On Fail): not sent again.
		results[itemIndex] ??= earlier.success(itemIndex) as INodeExecutionData[];
	}

	// Read and checked when the first request is about to go: an operation that sends nothing
	// (Conversation > Pass Once) needs no working credential. A bad one stops the node.
	let credential: ReturnType<typeof voiceAiCredential> | undefined;
	const { recordOf } = operation;
	const sendItem = async (itemIndex: number) => {
		if (results[itemIndex]) return;
		const api: ApiCall = async (method, path, body, extra) =>
			await voiceAiApiRequest.call(this, method, path, body, extra, {
				itemIndex,
				gate,
				retry,
				repeatable: operation.repeatable,
				mayHaveApplied: operation.mayHaveApplied,
				target: operation.target?.(inputs[itemIndex]),
				credential: await (credential ??= voiceAiCredential.call(this, 0, secrets)),
			});
		try {
			const records = await operation.execute.call(this, inputs[itemIndex], api, itemIndex);
			const unusable = unusableResult(this, operation, records, itemIndex);
			if (unusable) throw unusable;
			const whole = operation.passesItemOn ? items[itemIndex] : undefined;
			results[itemIndex] = records.map((json) => ({
				...whole,
				json,
				pairedItem: { item: itemIndex },
			}));
			earlier.record(itemIndex, results[itemIndex]);
		} catch (caught) {
			// Stopped because another item failed (an operation may have wrapped that): that one is reported.
			if (caught instanceof RequestsStopped || causeOf(caught) instanceof RequestsStopped) return;
			fail(caught, itemIndex, [caught, causeOf(caught)].some(isUnusableCredentialError));
		}
	};
	await gate.forEachIndex(
		items.length,
		sendItem,
		recordOf && ((itemIndex) => (results[itemIndex] ? undefined : recordOf(inputs[itemIndex]))),
	);

	return [
		results.flatMap((itemResults, itemIndex) =>
			itemResults.map((item) => {
				// A failed item is free text (message, description): redacted as an error message is.
				const text = failedItems.has(item) ? secrets.redactText(item.json) : item.json;
				// SIP Get, Update, Compare with Show SIP Passwords keep the passwords they were asked to show.
				const shown = isPlainObject(inputs[itemIndex]) && inputs[itemIndex].showPasswords === true;
				const json = secrets.redactValue(text, shown);
				return json === item.json ? item : { ...item, json };
			}),
		),
	];
}
