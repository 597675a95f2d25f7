import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VoiceAiOperation } from './types';

type ItemError = Error & { description?: unknown; httpCode?: unknown };

/** The message, and the description and HTTP code where there are any. */
function errorFields(error: ItemError): IDataObject {
	const fields: IDataObject = { error: error.message };
	if (typeof error.description === 'string' && error.description)
		fields.description = error.description;
	if (typeof error.httpCode === 'string' && error.httpCode) fields.httpCode = error.httpCode;
	return fields;
}

/**
 * The output item of an item that failed while the node continues on errors.
 * "Continue (regular output)": `{ error, description?, httpCode? }`, as always.
 * "Continue (using error output)": n8n routes an item to the error output only when its json holds
 * nothing but `error` (n8n 1.x also allows `message`; 2.x `message` and `details`), and it replaces the
 * json of an item that carries an item-level `error`. So the same fields go inside `error`:
 * `{ error: { message, description?, httpCode? } }`, which n8n then merges over the input item's json.
 */
export function failedItem(
	ctx: IExecuteFunctions,
	error: ItemError,
	itemIndex: number,
): INodeExecutionData {
	const { error: message, ...rest } = errorFields(error);
	const json: IDataObject =
		ctx.getNode().onError === 'continueErrorOutput'
			? { error: { message, ...rest } }
			: { error: message, ...rest };
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * A result that is an item on the regular output but a failure for an error branch (the operation's
 * `failureIn`, e.g. SIP Compare's "could not read": a scheduled audit with an error branch must hear
 * of it). Only with "Continue (using error output)"; otherwise the item goes out as it is.
 */
export function unusableResult(
	ctx: IExecuteFunctions,
	operation: VoiceAiOperation,
	records: IDataObject[],
	itemIndex: number,
): NodeOperationError | undefined {
	if (ctx.getNode().onError !== 'continueErrorOutput') return undefined;
	const failure = operation.failureIn?.(records);
	if (!failure) return undefined;
	return new NodeOperationError(ctx.getNode(), failure.message, {
		itemIndex,
		description: failure.description,
	});
}
