import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeProperties,
} from 'n8n-workflow';

import { type ApiCall, type ApiPath, listIn } from '../transport/request';
import { isPlainObject } from '../transport/secrets';

/** A request with the item's retry policy (the transport's); operations call it through `send`. */
export type { ApiCall };

/** A request in the spec's form (`/sip/{phone_number}`): what `send` sends and the docs show. */
export interface OperationRequest {
	method: IHttpRequestMethods;
	path: string;
	when?: string; // sent only in some runs, e.g. 'to keep the directions not listed'
}
export function request(method: IHttpRequestMethods, path: string): OperationRequest {
	return { method, path };
}

/**
 * What `send` sends besides the request: a value for each `{name}` of its path, a body, options.
 */
export interface Sending {
	values?: Record<string, ApiPath['values'][number]>;
	body?: Parameters<ApiCall>[2];
	extra?: Parameters<ApiCall>[3];
}
/** Each `{name}` takes its value encoded; one empty, `.`, `..` or with a slash is refused. */
export async function send(
	api: ApiCall,
	{ method, path }: OperationRequest,
	what: Sending = {},
): Promise<unknown> {
	const names = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name);
	const values = names.map((name) => {
		const value = what.values?.[name];
		if (!value) throw new Error(`${method} ${path} was sent without a value for {${name}}`);
		return value;
	});
	const pieces = path.split(/\{[^}]+\}/);
	return await api(method, names.length === 0 ? path : { pieces, values }, what.body, what.extra);
}

type ChangesData = 'changes data' | `changes data: ${string}`;
/** `repeatable`: sent twice, same state; else `mayHaveApplied` says what a lost answer may hide. */
export type VoiceAiOperation<Input = unknown> = (
	| { changesData: false | ChangesData; repeatable: true; mayHaveApplied?: never }
	| { changesData: ChangesData; repeatable: false; mayHaveApplied: string }
) & {
	name: string;
	summary: string; // the option's description and the README's "What it does"
	action: string;
	requests: OperationRequest[]; // every request it may send, in order
	worksOn?: string; // what an operation that sends no request works on
	description: INodeProperties[]; // its fields; the registry shows them for this operation only
	subjectOf?(input: Input): string; // what a 404 is about, e.g. `Chatbot "cb_1"`
	recordKeyOf?(input: Input): string; // read then written: items on one record run one at a time
	passesItemOn?: true; // the output is the whole input item (binary too), its json the records
	/** A result that is a failure for "Continue (using error output)", or undefined. */
	failureIn?(records: IDataObject[]): { message: string; description: string } | undefined;
	validate(this: IExecuteFunctions, itemIndex: number): Input | Promise<Input>;
	execute(
		this: IExecuteFunctions,
		input: Input,
		api: ApiCall,
		itemIndex: number,
	): Promise<IDataObject[]>;
};
export const defineOperation = <Input>(operation: VoiceAiOperation<Input>) =>
	operation as VoiceAiOperation;

export interface VoiceAiResource {
	value: string; // stored in users' workflows, like each operation's key: never change one
	name: string;
	operations: Record<string, VoiceAiOperation>; // the first is a new node's; fields in this order
}
export const defineResource = (
	value: string,
	name: string,
	operations: VoiceAiResource['operations'],
): VoiceAiResource => ({ value, name, operations });

export const toListRecords = (body: unknown, limit?: number) =>
	toRecords(listIn(body) ?? body, limit);
export const toRecords = (body: unknown, limit?: number): IDataObject[] =>
	(Array.isArray(body) ? body : [body])
		.slice(0, limit)
		.map((entry) => (isPlainObject(entry) ? entry : { value: entry as IDataObject[string] }));

export const returnAllFields = (noun: string) =>
	[
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			hint: `At most this many ${noun}`,
			displayOptions: { show: { returnAll: [false] } },
		},
	] satisfies INodeProperties[];
