import type { IExecuteData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readRequestOptions } from './requestOptions';
import { RequestGate, RequestsStopped } from '../transport/pacing';
import { isUnusableCredentialError, runRequests } from '../transport/request';
import { Secrets } from '../transport/secrets';
import { operationOf } from './registry';
import type { VoiceAiOperation } from './types';

// Every item is validated before any is sent; all output leaves through `secrets`.
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = startRun(this, chosenOperation(this));
	for (let itemIndex = 0; itemIndex < run.items.length; itemIndex++)
		await validateItem(run, itemIndex);
	const { operation, results, inputs } = run;
	const { recordKeyOf } = operation;
	await run.gate.forEachIndex(
		run.items.length,
		async (itemIndex) => await sendItem(run, itemIndex),
		recordKeyOf &&
			((itemIndex) => (results[itemIndex] ? undefined : recordKeyOf(inputs[itemIndex]))),
	);
	return [redactedOutput(run)];
}

function chosenOperation(ctx: IExecuteFunctions): VoiceAiOperation {
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operationName = ctx.getNodeParameter('operation', 0) as string;
	const operation = operationOf(resource, operationName);
	if (!operation)
		throw new NodeOperationError(
			ctx.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	return operation;
}

/** What the steps of one run share: each item's input, then its output items. */
function startRun(ctx: IExecuteFunctions, operation: VoiceAiOperation) {
	const items = ctx.getInputData();
	const { concurrency, retry } = readRequestOptions(ctx);
	const gate = new RequestGate(concurrency, ctx.getExecutionCancelSignal?.());
	const secrets = new Secrets();
	// A read answered with nothing: a list lists nothing; a read of one record has nothing to output.
	const lists = operation.description.some(({ name }) => name === 'returnAll');
	const emptyRead = lists ? 'list' : operation.changesData === false ? 'refuse' : undefined;
	const { repeatable, mayHaveApplied } = operation;
	return {
		ctx,
		operation,
		items,
		gate,
		secrets,
		requestsOf: runRequests(ctx, secrets, { gate, retry, repeatable, mayHaveApplied, emptyRead }),
		errorOutput: ctx.getNode().onError === 'continueErrorOutput',
		earlier: earlierTries(ctx, items),
		results: new Array<INodeExecutionData[]>(items.length),
		inputs: new Array<unknown>(items.length),
		failedItems: new Set<INodeExecutionData>(),
	};
}
type Run = ReturnType<typeof startRun>;

async function validateItem(run: Run, itemIndex: number): Promise<void> {
	const { ctx, operation, inputs, secrets } = run;
	try {
		inputs[itemIndex] = await operation.validate.call(ctx, itemIndex);
		secrets.collect(inputs[itemIndex]);
	} catch (caught) {
		// A refusal may show a value back (a webhook URL with its token): hide the raw parameters' too.
		secrets.collect(
			operation.description.map(({ name }) => {
				try {
					return ctx.getNodeParameter(name, itemIndex, undefined);
				} catch {
					return undefined;
				}
			}),
		);
		failItem(run, caught, itemIndex);
	}
	run.results[itemIndex] ??= run.earlier[itemIndex] as INodeExecutionData[];
}

async function sendItem(run: Run, itemIndex: number): Promise<void> {
	const { ctx, operation, results, inputs } = run;
	if (results[itemIndex]) return;
	try {
		const api = run.requestsOf(itemIndex, operation.subjectOf?.(inputs[itemIndex]));
		const records = await operation.execute.call(ctx, inputs[itemIndex], api, itemIndex);
		const failure = run.errorOutput ? operation.failureIn?.(records) : undefined;
		if (failure)
			throw new NodeOperationError(ctx.getNode(), failure.message, { itemIndex, ...failure });
		const whole = operation.passesItemOn ? run.items[itemIndex] : undefined;
		results[itemIndex] = records.map((json) => ({
			...whole,
			json,
			pairedItem: { item: itemIndex },
		}));
		run.earlier[itemIndex] = results[itemIndex];
	} catch (caught) {
		// Stopped because another item failed (maybe wrapped by an operation): that one is reported.
		const chain = [caught, (caught as { cause?: unknown })?.cause];
		if (chain.some((error) => error instanceof RequestsStopped)) return;
		failItem(run, caught, itemIndex, chain.some(isUnusableCredentialError));
	}
}

/** Stops the run (`stops`, or no Continue On Fail), or makes the error the item's output. */
function failItem(run: Run, caught: unknown, itemIndex: number, stops = false): void {
	const { ctx } = run;
	const error =
		caught instanceof NodeApiError || caught instanceof NodeOperationError
			? caught
			: new NodeOperationError(ctx.getNode(), caught as Error, { itemIndex });
	if (!ctx.continueOnFail() || stops) {
		run.gate.close();
		throw run.secrets.redactError(error);
	}
	// The only shape n8n 1.x and 2.x both route to the error output (docs/operations.md).
	const { message, description, httpCode } = error as NodeApiError;
	const rest = { ...(description && { description }), ...(httpCode && { httpCode }) };
	const json = run.errorOutput ? { error: { message, ...rest } } : { error: message, ...rest };
	const item = { json, pairedItem: { item: itemIndex } };
	run.failedItems.add(item);
	run.results[itemIndex] = [item];
}

function redactedOutput({ results, inputs, failedItems, secrets }: Run): INodeExecutionData[] {
	return results.flatMap((itemResults, itemIndex) => {
		// SIP Get, Update, Compare with Show SIP Passwords keep the passwords they were asked to show.
		const shown =
			(inputs[itemIndex] as { showPasswords?: unknown } | undefined)?.showPasswords === true;
		return itemResults.map((item) => {
			// A failed item is free text (message, description): redacted as an error message is.
			const text = failedItems.has(item) ? secrets.redactForError(item.json) : item.json;
			const json = secrets.redactForOutput(text, shown);
			return json === item.json ? item : { ...item, json };
		});
	});
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
