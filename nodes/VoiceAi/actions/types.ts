import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import type { ApiPath } from '../transport';
import { listIn } from '../transport';

/** A value for a `{name}` of a request's path, with the field it came from. */
type PathValue = ApiPath['values'][number];

/**
 * A request to the Voice AI API with this item's retry policy already applied. An operation sends its
 * declared requests through `send`; either way `.`, `..`, empty values and slashes in the path are
 * refused before anything is sent.
 */
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
 * A request an operation sends: written once, in the spec's form, it is what `send` sends and what the
 * README, docs/operations.md and the catalogue's check show.
 */
export interface OperationRequest<Path extends string = string> {
	method: IHttpRequestMethods;
	/** The spec's path, ids in braces: `/sip/{phone_number}`. */
	path: Path;
	/** Only sent in some runs: when, e.g. 'to keep the directions not listed'. */
	when?: string;
}

export const request = <Path extends string>(
	method: IHttpRequestMethods,
	path: Path,
): OperationRequest<Path> => ({ method, path });

/** What `send` takes besides the request; a path with `{name}`s needs a value for each (checked by tsc). */
type Sending<Path extends string> = {
	body?: IDataObject | IDataObject[] | Buffer;
	extra?: Partial<IHttpRequestOptions>;
} & ([PathNames<Path>] extends [never]
	? { values?: undefined }
	: { values: Record<PathNames<Path>, PathValue> });

/**
 * Sends a request the operation declares. Each `{name}` of its path takes the value given for it, with
 * the field it came from: encoded, and refused naming that field when it is empty, `.`, `..` or holds a
 * slash.
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

/**
 * The note the editor adds to a changing operation's option description, in its parentheses:
 * "changes data", or "changes data: " and what it changes.
 */
export type ChangesDataNote = 'changes data' | `changes data: ${string}`;

/**
 * What an operation does to the service's data. `repeatable`: sending it twice leaves the same state
 * (always so for a read); one that is not says in `mayHaveApplied` what may have happened when the
 * answer was lost.
 */
type Effect =
	| { changesData: false | ChangesDataNote; repeatable: true; mayHaveApplied?: never }
	| { changesData: ChangesDataNote; repeatable: false; mayHaveApplied: string };

/**
 * One operation: what the editor and the docs show of it, its requests, whether repeating it is safe,
 * its fields, its validation and its execution. The resource's index lists it under its `value`.
 */
export type VoiceAiOperation<Input = unknown> = Effect & {
	/**
	 * The Operation dropdown's option: name, description (the changes-data note is added; also the
	 * README table's "What it does") and action.
	 */
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
	/**
	 * For an operation that reads a record and then writes it (or reads it to judge its write): the
	 * record, e.g. the phone number. Items of one execution on one record run one at a time, in input order.
	 */
	recordOf?(input: Input): string;
	/** Its records are the input item's json passed on: the output item is then the whole input item (binary too). */
	passesItemOn?: true;
	/** A result that is a failure for an error branch ("Continue (using error output)"), or undefined. */
	failureIn?(records: IDataObject[]): { message: string; description: string } | undefined;
	/** Reads and checks the item's parameters; throws NodeOperationError before anything is sent. */
	validate(this: IExecuteFunctions, itemIndex: number): Input | Promise<Input>;
	/** Sends the request(s) and returns one JSON object per output item. */
	execute(
		this: IExecuteFunctions,
		input: Input,
		api: ApiCall,
		itemIndex: number,
	): Promise<IDataObject[]>;
};

export function defineOperation<Input>(
	operation: VoiceAiOperation<Input>,
): VoiceAiOperation<unknown> {
	return operation as VoiceAiOperation<unknown>;
}

/** A list answer (see `listIn`) becomes one item per element, up to `limit`; any other answer is one item. */
export function toListRecords(body: unknown, limit?: number): IDataObject[] {
	return toRecords(listIn(body) ?? body, limit);
}

/** Arrays become one object per element; an object passes through unchanged as one item. */
export function toRecords(body: unknown, limit?: number): IDataObject[] {
	const list = Array.isArray(body) ? body : [body];
	const records = list.map((entry) =>
		entry !== null && typeof entry === 'object' && !Array.isArray(entry)
			? (entry as IDataObject)
			: { value: entry as IDataObject[string] },
	);
	return limit === undefined ? records : records.slice(0, limit);
}

/** Return All and Limit as n8n list operations offer them (read by readListLimit). */
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
export const returnAllFields = (
	resource: string,
	operation: string,
	noun: string,
): INodeProperties[] => [
	{ ...RETURN_ALL, displayOptions: { show: { resource: [resource], operation: [operation] } } },
	{
		...LIMIT,
		hint: `At most this many ${noun}`,
		displayOptions: { show: { resource: [resource], operation: [operation], returnAll: [false] } },
	},
];

/**
 * A phone number picked from the numbers the agents list shows ("From List", method searchPhoneNumbers of
 * the node) or typed ("By Number"). Read it with `readString(..., { locator: true })`.
 */
export function phoneNumberLocator(description: string): INodeProperties {
	return {
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
	};
}

/** An id the spec offers no list endpoint for: typed "By ID" only. */
export function idLocator(
	displayName: string,
	name: string,
	placeholder: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'id', value: '' },
		required: true,
		description,
		modes: [{ displayName: 'By ID', name: 'id', type: 'string', placeholder }],
	};
}
