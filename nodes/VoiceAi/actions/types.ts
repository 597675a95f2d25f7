import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import type { ApiPath } from '../transport';
import { listIn } from '../transport';

/** A request to the Voice AI API with the item's retry policy applied; operations call it via `send`. */
export type ApiCall = (
	method: IHttpRequestMethods,
	path: string | ApiPath,
	body?: IDataObject | IDataObject[] | Buffer,
	extra?: Partial<IHttpRequestOptions>,
) => Promise<unknown>;

/** `'/agency/{carrier}/trust-products'` → `'carrier'`: the names of the values a path takes. */
type PathNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
	? Name | PathNames<Rest>
	: never;

/**
 * A request an operation sends, written once in the spec's form (`/sip/{phone_number}`): what `send`
 * sends and what the README, docs/operations.md and the catalogue's check show.
 */
export interface OperationRequest<Path extends string = string> {
	method: IHttpRequestMethods;
	path: Path;
	/** Only sent in some runs: when, e.g. 'to keep the directions not listed'. */
	when?: string;
}

export const request = <Path extends string>(
	method: IHttpRequestMethods,
	path: Path,
): OperationRequest<Path> => ({ method, path });

type PathValue = ApiPath['values'][number];
/** What `send` takes besides the request; a path with `{name}`s needs a value for each (checked by tsc). */
type Sending<Path extends string> = {
	body?: Parameters<ApiCall>[2];
	extra?: Parameters<ApiCall>[3];
} & ([PathNames<Path>] extends [never]
	? { values?: undefined }
	: { values: Record<PathNames<Path>, PathValue> });

/**
 * Sends a request the operation declares, each `{name}` of its path taking the value given for it with
 * its field: encoded, and refused naming that field when it is empty, `.`, `..` or holds a slash.
 */
export async function send<Path extends string>(
	api: ApiCall,
	{ method, path }: OperationRequest<Path>,
	...[what = {} as Sending<Path>]: [PathNames<Path>] extends [never]
		? [what?: Sending<Path>]
		: [what: Sending<Path>]
): Promise<unknown> {
	const pieces = path.split(/\{[^}]+\}/);
	const names = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name as PathNames<Path>);
	const values = names.map((name) => (what.values as Record<string, PathValue>)[name]);
	return await api(method, names.length === 0 ? path : { pieces, values }, what.body, what.extra);
}

/** Added to a changing operation's option description (the hint), in parentheses. */
type ChangesData = 'changes data' | `changes data: ${string}`;

/**
 * One operation. `repeatable`: sending it twice leaves the same state (always so for a read); one that
 * is not says in `mayHaveApplied` what may have happened when the answer was lost.
 */
export type VoiceAiOperation<Input = unknown> = (
	| { changesData: false | ChangesData; repeatable: true; mayHaveApplied?: never }
	| { changesData: ChangesData; repeatable: false; mayHaveApplied: string }
) & {
	/** The Operation dropdown's option; `hint` is its description and the README's "What it does". */
	name: string;
	hint: string;
	action: string;
	/** Every request it may send, in order; empty for an operation that sends none. */
	requests: OperationRequest[];
	/** For an operation that sends no request: what it works on instead. */
	instead?: string;
	/** Its fields, shown only for its resource and operation. */
	description: INodeProperties[];
	/** Names what a 404 is about, e.g. `Chatbot "cb_1"`. */
	target?(input: Input): string;
	/** The record it reads and then writes: items on one record run one at a time, in input order. */
	recordOf?(input: Input): string;
	/** The output item is the whole input item (binary too): its records are the item's json. */
	passesItemOn?: true;
	/** A result that is a failure for an error branch ("Continue (using error output)"), or undefined. */
	failureIn?(records: IDataObject[]): { message: string; description: string } | undefined;
	/** Reads and checks the item's parameters (validation.ts), throwing NodeOperationError. */
	validate(this: IExecuteFunctions, itemIndex: number): Input | Promise<Input>;
	/** Sends the request(s) and returns one JSON object per output item. */
	execute(
		this: IExecuteFunctions,
		input: Input,
		api: ApiCall,
		itemIndex: number,
	): Promise<IDataObject[]>;
};

export const defineOperation = <Input>(operation: VoiceAiOperation<Input>) =>
	operation as VoiceAiOperation;

/** One resource of the Voice AI node: its dropdown entry and its operations. */
export interface VoiceAiResource {
	/** Stored in users' workflows, like each operation's key: never change one. */
	value: string;
	name: string;
	/** By value; the first is the one a new node shows, and their fields come in this order. */
	operations: Record<string, VoiceAiOperation>;
}

export const defineResource = (resource: VoiceAiResource) => resource;

/** A list answer (see `listIn`) becomes one item per element, up to `limit`; any other answer is one item. */
export const toListRecords = (body: unknown, limit?: number) =>
	toRecords(listIn(body) ?? body, limit);

/** Arrays become one object per element; an object passes through unchanged as one item. */
export const toRecords = (body: unknown, limit?: number): IDataObject[] =>
	(Array.isArray(body) ? body : [body])
		.slice(0, limit)
		.map((entry) =>
			entry !== null && typeof entry === 'object' && !Array.isArray(entry)
				? (entry as IDataObject)
				: { value: entry as IDataObject[string] },
		);

/** Return All and Limit as n8n list operations offer them. */
export const RETURN_ALL = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
} satisfies INodeProperties;
export const LIMIT = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
} satisfies INodeProperties;
export function returnAllFields(
	resource: string,
	operation: string,
	noun: string,
): INodeProperties[] {
	const show = { resource: [resource], operation: [operation] };
	return [
		{ ...RETURN_ALL, displayOptions: { show } },
		{
			...LIMIT,
			hint: `At most this many ${noun}`,
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	];
}

/** A resource locator of one "By ID" mode, typed: for an id the spec offers no list endpoint for. */
export const idLocator = (
	displayName: string,
	name: string,
	placeholder: string,
	description: string,
): INodeProperties => ({
	displayName,
	name,
	type: 'resourceLocator',
	default: { mode: 'id', value: '' },
	required: true,
	description,
	modes: [{ displayName: 'By ID', name: 'id', type: 'string', placeholder }],
});

/**
 * A phone number picked from the numbers the agents list shows (the node's searchPhoneNumbers) or
 * typed. Read it with `readString(..., { locator: true })`.
 */
export const phoneNumberLocator = (description: string): INodeProperties => ({
	displayName: 'Phone Number',
	name: 'phoneNumber',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a number used by an agent...',
			typeOptions: { searchListMethod: 'searchPhoneNumbers', searchable: true },
		},
		{
			displayName: 'By Number',
			name: 'id',
			type: 'string',
			placeholder: '+14155550101',
			hint: 'E.164: a plus sign, the country code and the number, digits only',
		},
	],
});
