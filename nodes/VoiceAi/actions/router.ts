import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readRequestOptions } from './requestOptions';
import {
	RequestGate,
	RequestsStopped,
	Secrets,
	forEachIndex,
	isPlainObject,
	isUnusableCredentialError,
	voiceAiApiRequest,
	voiceAiCredential,
} from '../transport';
import { earlierTries } from './earlierTries';
import { failedItem, unusableResult } from './failedItem';
import { operationOf } from './registry';
import type { ApiCall, VoiceAiOperation } from './types';

/** Whether an item's checked input asks to show SIP passwords (SIP Get, Update, Compare: Show SIP Passwords). */
const showsSipPasswords = (input: unknown): boolean =>
	isPlainObject(input) && input.showPasswords === true;

/** Errors from the operations are already NodeApiError/NodeOperationError; anything else gets wrapped. */
function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * The item's parameters as given, before any check: a refusal may show a value back (a malformed
 * webhook URL with its token), so its secrets must be known before the refusal is shown.
 */
function rawParameters(ctx: IExecuteFunctions, operation: VoiceAiOperation, itemIndex: number) {
	return operation.description.map(({ name }) => {
		try {
			return ctx.getNodeParameter(name, itemIndex, undefined);
		} catch {
			return undefined;
		}
	});
}

/**
 * Validates every item first (nothing is sent while any item is invalid, unless Continue On Fail turns
 * it into an error item), then sends up to Concurrency items at once; items on one record (recordOf)
 * run one at a time, in input order. Output keeps input order.
 * A hard failure (no Continue On Fail) closes the gate: requests not yet started are not sent.
 * Every secret of the execution (the key, the base URL's user info, SIP passwords and tokens in the
 * items and in what was sent) is removed from every output item and error.
 * With n8n's Retry On Fail, a later try of the same run sends only the items that did not succeed.
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
	const gate = new RequestGate(concurrency);
	const continueOnFail = this.continueOnFail();
	const results: INodeExecutionData[][] = new Array(items.length);
	const secrets = new Secrets();
	const earlier = earlierTries(this, items);
	const failedItems = new Set<INodeExecutionData>();
	const failed = (error: Error, itemIndex: number) => {
		const item = failedItem(this, error, itemIndex);
		failedItems.add(item);
		return item;
	};

	const inputs: unknown[] = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			inputs[itemIndex] = await operation.validate.call(this, itemIndex);
			secrets.collect(inputs[itemIndex]);
		} catch (caught) {
			secrets.collect(rawParameters(this, operation, itemIndex));
			const error = asNodeError(this, caught, itemIndex);
			if (!continueOnFail) throw secrets.redactError(error);
			results[itemIndex] = [failed(error, itemIndex)];
		}
	}

	// Sent successfully by an earlier try of this run (Retry On Fail): not sent again.
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++)
		results[itemIndex] ??= earlier.success(itemIndex) as INodeExecutionData[];

	// Read and checked once per execution, when the first request is about to go: an operation that
	// sends nothing (Conversation > Pass Once) needs no working credential. A bad one stops the node.
	let credential: ReturnType<typeof voiceAiCredential> | undefined;
	const checkedCredential = async () =>
		await (credential ??= voiceAiCredential.call(this, 0, secrets));

	const { recordOf } = operation;
	const recordOfItem = recordOf
		? (itemIndex: number) => (results[itemIndex] ? undefined : recordOf(inputs[itemIndex]))
		: undefined;
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
				credential: await checkedCredential(),
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
			// Stopped because another item failed (an operation may have wrapped that): the other failure is what the node reports.
			if (
				caught instanceof RequestsStopped ||
				(caught as { cause?: unknown })?.cause instanceof RequestsStopped
			)
				return;
			const error = asNodeError(this, caught, itemIndex);
			const unusableCredential =
				isUnusableCredentialError(caught) ||
				isUnusableCredentialError((caught as { cause?: unknown })?.cause);
			if (!continueOnFail || unusableCredential) {
				gate.close();
				throw secrets.redactError(error);
			}
			results[itemIndex] = [failed(error, itemIndex)];
		}
	};
	await forEachIndex(items.length, concurrency, sendItem, recordOfItem);

	return [
		results.flatMap((itemResults, itemIndex) =>
			itemResults.map((item) => {
				// A failed item is free text (message, description): redacted as an error message is.
				const text = failedItems.has(item) ? secrets.redactText(item.json) : item.json;
				const json = secrets.redactValue(text, showsSipPasswords(inputs[itemIndex]));
				return json === item.json ? item : { ...item, json };
			}),
		),
	];
}
