import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VoiceAiOperation } from './types';

/**
 * The output item of an item that failed while the node continues on errors: `{ error, description?,
 * httpCode? }`. With "Continue (using error output)" the same fields go inside `error`: n8n routes an
 * item there only when its json holds nothing but `error` (1.x also allows `message`; 2.x `message` and
 * `details`), then merges it over the input item's json.
 */
export function failedItem(
	ctx: IExecuteFunctions,
	error: Error & { description?: unknown; httpCode?: unknown },
	itemIndex: number,
): INodeExecutionData {
	const { message, description, httpCode } = error;
	const rest: IDataObject = {};
	if (typeof description === 'string' && description) rest.description = description;
	if (typeof httpCode === 'string' && httpCode) rest.httpCode = httpCode;
	const json =
		ctx.getNode().onError === 'continueErrorOutput'
			? { error: { message, ...rest } }
			: { error: message, ...rest };
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * With "Continue (using error output)", a result the operation's `failureIn` calls a failure (SIP
 * Compare's "could not read": a scheduled audit's error branch must hear of it); otherwise undefined.
 */
export function unusableResult(
	ctx: IExecuteFunctions,
	operation: VoiceAiOperation,
	records: IDataObject[],
	itemIndex: number,
): NodeOperationError | undefined {
	const failure = ctx.getNode().onError === 'continueErrorOutput' && operation.failureIn?.(records);
	if (!failure) return undefined;
	const { message, description } = failure;
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}
