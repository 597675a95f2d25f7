import type { IExecuteData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readRequestOptions } from './requestOptions';
import {
	RequestsStopped,
	Secrets,
	isUnusableCredentialError,
	requestGate,
	voiceAiApiRequest,
	voiceAiCredential,
} from '../transport';
import { operationOf } from './registry';
import type { ApiCall } from './types';

// Every item is validated before any is sent; all output leaves through `secrets`.
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operationOf(resource, operationName);
	if (!operation)
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	const { concurrency, retry } = readRequestOptions(this);
	const gate = requestGate(concurrency, this.getExecutionCancelSignal?.());
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	const secrets = new Secrets();
	const earlier = earlierTries(this, items);
	const results: INodeExecutionData[][] = new Array(items.length);
	const inputs: unknown[] = new Array(items.length);
	const failedItems = new Set<INodeExecutionData>();
	const fail = (caught: unknown, itemIndex: number, stops = false) => {
		const error =
			caught instanceof NodeApiError || caught instanceof NodeOperationError
				? caught
				: new NodeOperationError(this.getNode(), caught as Error, { itemIndex });
		if (!this.continueOnFail() || stops) {
			gate.close();
			throw secrets.redactError(error);
		}
		// The only shape n8n 1.x and 2.x both route to the error output (docs/operations.md).
		const { message, description, httpCode } = error as NodeApiError;
		const rest = { ...(description && { description }), ...(httpCode && { httpCode }) };
		const json = errorOutput ? { error: { message, ...rest } } : { error: message, ...rest };
		const item = { json, pairedItem: { item: itemIndex } };
		failedItems.add(item);
		results[itemIndex] = [item];
	};

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
		results[itemIndex] ??= earlier[itemIndex] as INodeExecutionData[];
	}

	// Read at the first request: an operation that sends nothing (Pass Once) needs no credential.
	let credential: ReturnType<typeof voiceAiCredential> | undefined;
	const { recordOf } = operation;
	// A read answered with nothing: a list lists nothing; a read of one record has nothing to output.
	const lists = operation.description.some(({ name }) => name === 'returnAll');
	const emptyRead = lists ? 'list' : operation.changesData === false ? 'refuse' : undefined;
	const sendItem = async (itemIndex: number) => {
		if (results[itemIndex]) return;
		const api: ApiCall = async (method, path, body, extra) =>
			await voiceAiApiRequest.call(this, method, path, body, extra, {
				itemIndex,
				gate,
				retry,
				repeatable: operation.repeatable,
				mayHaveApplied: operation.mayHaveApplied,
				emptyRead,
				target: operation.target?.(inputs[itemIndex]),
				credential: await (credential ??= voiceAiCredential.call(this, 0, secrets)),
			});
		try {
			const records = await operation.execute.call(this, inputs[itemIndex], api, itemIndex);
			const failure = errorOutput ? operation.failureIn?.(records) : undefined;
			if (failure)
				throw new NodeOperationError(this.getNode(), failure.message, { itemIndex, ...failure });
			const whole = operation.passesItemOn ? items[itemIndex] : undefined;
			results[itemIndex] = records.map((json) => ({
				...whole,
				json,
				pairedItem: { item: itemIndex },
			}));
			earlier[itemIndex] = results[itemIndex];
		} catch (caught) {
			// Stopped because another item failed (an operation may have wrapped that): that one is reported.
			const chain = [caught, (caught as { cause?: unknown })?.cause];
			if (chain.some((error) => error instanceof RequestsStopped)) return;
			fail(caught, itemIndex, chain.some(isUnusableCredentialError));
		}
	};
	await gate.forEachIndex(
		items.length,
		sendItem,
		recordOf && ((itemIndex) => (results[itemIndex] ? undefined : recordOf(inputs[itemIndex]))),
	);

	return [
		results.flatMap((itemResults, itemIndex) => {
			// SIP Get, Update, Compare with Show SIP Passwords keep the passwords they were asked to show.
			const shown =
				(inputs[itemIndex] as { showPasswords?: unknown } | undefined)?.showPasswords === true;
			return itemResults.map((item) => {
				// A failed item is free text (message, description): redacted as an error message is.
				const text = failedItems.has(item) ? secrets.redactText(item.json) : item.json;
				const json = secrets.redactValue(text, shown);
				return json === item.json ? item : { ...item, json };
			});
		}),
	];
}

// n8n's Retry On Fail gives the tries of one run (only) the same IExecuteData and input array.
type Tries = { executeData: IExecuteData; successes: Array<INodeExecutionData[] | undefined> };
const triesOfRun = new WeakMap<INodeExecutionData[], Tries>();
function earlierTries(ctx: IExecuteFunctions, items: INodeExecutionData[]): Tries['successes'] {
	const executeData = typeof ctx.getExecuteData === 'function' ? ctx.getExecuteData() : undefined;
	if (ctx.getNode().retryOnFail !== true || !executeData) return new Array(items.length);
	let tries = triesOfRun.get(items);
	if (tries?.executeData !== executeData || tries.successes.length !== items.length) {
		tries = { executeData, successes: new Array(items.length) };
		triesOfRun.set(items, tries);
	}
	return tries.successes;
}
