import type {
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
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
import { operationOf } from './registry';
import type { ApiCall } from './types';

const causeOf = (error: unknown): unknown => (error as { cause?: unknown })?.cause;

/**
 * Validates every item first (nothing is sent while any item is invalid, unless Continue On Fail turns
 * it into an error item), then sends up to Concurrency items at once (RequestGate, recordOf). Output
 * keeps input order. A hard failure closes the gate: requests not yet started are not sent. With n8n's
 * Retry On Fail, a later try sends only the items that did not succeed. The one place secrets leave:
 * every error and output item goes out through `secrets` here.
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
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
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
		const item = failedItem(error, itemIndex, errorOutput);
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
		results[itemIndex] ??= earlier[itemIndex] as INodeExecutionData[];
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
			const failure = errorOutput ? operation.failureIn?.(records) : undefined;
			if (failure) {
				const { message, description } = failure;
				throw new NodeOperationError(this.getNode(), message, { itemIndex, description });
			}
			const whole = operation.passesItemOn ? items[itemIndex] : undefined;
			results[itemIndex] = records.map((json) => ({
				...whole,
				json,
				pairedItem: { item: itemIndex },
			}));
			earlier[itemIndex] = results[itemIndex];
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

/**
 * The output item of an item that failed while the node continues on errors: `{ error, description?,
 * httpCode? }`. With "Continue (using error output)" the same fields go inside `error`: n8n routes an
 * item there only when its json holds nothing but `error` (1.x also allows `message`; 2.x `message` and
 * `details`), then merges it over the input item's json.
 */
function failedItem(
	error: Error & { description?: unknown; httpCode?: unknown },
	itemIndex: number,
	errorOutput: boolean,
): INodeExecutionData {
	const { message, description, httpCode } = error;
	const rest: IDataObject = {};
	if (typeof description === 'string' && description) rest.description = description;
	if (typeof httpCode === 'string' && httpCode) rest.httpCode = httpCode;
	const json = errorOutput ? { error: { message, ...rest } } : { error: message, ...rest };
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * n8n's Retry On Fail runs the node again within one run of it, handing every try the same IExecuteData
 * and input array (WorkflowExecute's try loop, 1.x and 2.x, main process and queue worker alike). A new
 * run, execution or AI tool call gets new ones, so shares nothing, and an entry goes with its data.
 */
const triesOfRun = new WeakMap<
	INodeExecutionData[],
	{ executeData: IExecuteData; successes: Array<INodeExecutionData[] | undefined> }
>();

/** Per input item, what earlier tries of this run sent successfully (kept with Retry On Fail only). */
function earlierTries(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
): Array<INodeExecutionData[] | undefined> {
	const executeData = typeof ctx.getExecuteData === 'function' ? ctx.getExecuteData() : undefined;
	if (ctx.getNode().retryOnFail !== true || !executeData) return new Array(items.length);
	let tries = triesOfRun.get(items);
	if (tries?.executeData !== executeData || tries.successes.length !== items.length) {
		tries = { executeData, successes: new Array(items.length) };
		triesOfRun.set(items, tries);
	}
	return tries.successes;
}
