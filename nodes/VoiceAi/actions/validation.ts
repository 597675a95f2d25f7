// Reading and checking the fields of an item, by kind of value: the error naming field and item, the
// readers (text, true/false, whole numbers, Return All / Limit, a set of fields), then the checks of a
// text value (ids and paths, phone numbers, URLs, SIP URIs, colours). Every check runs before the
// item's request is built: a bad value never reaches the service.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	NodeOperationError,
} from 'n8n-workflow';

import {
	HALF_CHARACTER,
	LONE_SURROGATE,
	destinationProblem,
	httpUrl,
	invalidValue,
	pathValueProblem,
	refusedUserInfo,
	shortened,
} from '../transport';
import { LIMIT, RETURN_ALL } from './types';

export interface FieldRef {
	/** The parameter's name in the node, e.g. `updateFields.header_color`. */
	name: string;
	/** What the user sees in the editor, e.g. `Header Color`. */
	label: string;
}

/**
 * The label of the property `name`: its displayName. The option of a collection is named with a dot
 * (`updateFields.header_color`: "Header Color"); a field of a fixedCollection's group carries the
 * group's name too (`directions.inbound.port`: "Inbound Port").
 */
function labelOf(properties: readonly INodeProperties[], name: string): string | undefined {
	const [first, ...rest] = name.split('.');
	const property = properties.find((candidate) => candidate.name === first);
	if (!property || rest.length === 0) return property?.displayName;
	if (property.type === 'fixedCollection') {
		const group = property.options?.find((option) => option.name === rest[0]);
		const label = group && 'values' in group && labelOf(group.values, rest.slice(1).join('.'));
		return label ? `${group.displayName} ${label}` : undefined;
	}
	const options = (property.options ?? []).filter(
		(option): option is INodeProperties => 'type' in option,
	);
	return labelOf(options, rest.join('.'));
}

/**
 * The fields an operation reads, each labelled by its property (`labelOf`), so a label is written
 * once, in the property. A name without a property throws when the operation's module loads.
 */
export function fieldsIn<Name extends string>(
	properties: readonly INodeProperties[],
	names: readonly Name[],
): Record<Name, FieldRef> {
	const fields = {} as Record<Name, FieldRef>;
	for (const name of names) {
		const label = labelOf(properties, name);
		if (label === undefined) throw new Error(`No property named ${name}`);
		fields[name] = { name, label };
	}
	return fields;
}

export const fieldIn = (properties: readonly INodeProperties[], name: string): FieldRef =>
	fieldsIn(properties, [name])[name];

function show(value: unknown): string {
	const text =
		typeof value === 'string' || (typeof value === 'object' && value !== null)
			? JSON.stringify(value)
			: String(value);
	return shortened(text, 60);
}

function typeName(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A `NodeOperationError` that names the field and the item, with an optional hint. */
export function invalidField(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	problem: string,
	hint?: string,
): NodeOperationError {
	return invalidValue(ctx.getNode(), itemIndex, field, problem, hint);
}

/** A check of one text value: returns the value to send, or throws the error naming field and item. */
export type TextCheck = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
) => string;

/** Refuses a value the pattern does not accept (`<value> <problem>`); an accepted one goes on as given. */
function patternCheck(
	pattern: { test(value: string): boolean },
	problem: string,
	hint?: string,
): TextCheck {
	return (ctx, itemIndex, field, value) => {
		if (!pattern.test(value))
			throw invalidField(ctx, itemIndex, field, `${show(value)} ${problem}`, hint);
		return value;
	};
}

/** Reads a text parameter; an expression that produced a number, object or nothing is refused. */
export function readString(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	options: {
		required?: boolean;
		fallback?: string;
		secret?: boolean;
		locator?: boolean;
		/** Free text (a message, a task): sent as typed; only its emptiness is judged without the spaces. */
		asTyped?: boolean;
		/**
		 * A field the user added to a collection: its value is sent, so an expression that yields nothing
		 * (undefined or null, e.g. a misspelt field name) is refused rather than sent empty. An explicit
		 * empty text still clears.
		 */
		added?: boolean;
		/** What a value given must also pass (checkE164, checkPathId ...); an empty optional one skips it. */
		check?: TextCheck;
	} = {},
): string {
	// A resource locator gives the value of whichever mode is chosen; a plain text value passes through.
	const raw = ctx.getNodeParameter(
		field.name,
		itemIndex,
		options.fallback ?? '',
		options.locator ? { extractValue: true } : {},
	) as unknown;
	if (raw === undefined || raw === null) {
		if (options.added) {
			throw invalidField(
				ctx,
				itemIndex,
				field,
				`its value is ${raw === null ? 'null' : 'undefined'} (an expression that yields nothing?)`,
				`Correct the expression (a misspelt field name yields nothing), give an empty text ({{ "" }}) to clear the field on purpose, or remove the field. Nothing was sent to Voice AI for this item.`,
			);
		}
		if (options.required) throw invalidField(ctx, itemIndex, field, 'a value is required');
		return '';
	}
	if (typeof raw !== 'string') {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`expected text, got ${typeName(raw)}${options.secret ? '' : ` (${show(raw)})`}`,
		);
	}
	// A secret is redacted in its URL-encoded form too, which text with half a character does not have.
	if (options.secret && LONE_SURROGATE.test(raw))
		throw invalidField(ctx, itemIndex, field, `it ${HALF_CHARACTER}`);
	const value = raw.trim();
	if (options.required && value === '')
		throw invalidField(ctx, itemIndex, field, 'a value is required');
	const read = options.asTyped ? raw : value;
	return options.check && value !== '' ? options.check(ctx, itemIndex, field, read) : read;
}

export function readBoolean(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	fallback: boolean,
): boolean {
	const raw = ctx.getNodeParameter(field.name, itemIndex, fallback) as unknown;
	if (typeof raw === 'boolean') return raw;
	if (raw === 'true' || raw === 'false') return raw === 'true';
	throw invalidField(
		ctx,
		itemIndex,
		field,
		`expected true or false, got ${typeName(raw)} (${show(raw)})`,
	);
}

export function checkOneOf<T extends string>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
	allowed: readonly T[],
): T {
	if (!(allowed as readonly string[]).includes(value)) {
		throw invalidField(ctx, itemIndex, field, `${show(value)} is not one of ${allowed.join(', ')}`);
	}
	return value as T;
}

/** Reads a collection parameter (e.g. Update Fields) and refuses anything that is not an object. */
export function readCollection(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
): IDataObject {
	const raw = ctx.getNodeParameter(field.name, itemIndex, {}) as unknown;
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
		throw invalidField(ctx, itemIndex, field, `expected a set of fields, got ${typeName(raw)}`);
	}
	return raw as IDataObject;
}

const WHOLE_NUMBER = /^-?\d+$/;
const DECIMAL_NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * A number given as text counts only in decimal digits: Number() would also read 0x13C4, 0b1010, 0o7
 * and 1e3, which nobody types as a port or a limit.
 */
export function decimalText(raw: unknown, wholeOnly: boolean): unknown {
	if (typeof raw !== 'string') return raw;
	const text = raw.trim();
	return (wholeOnly ? WHOLE_NUMBER : DECIMAL_NUMBER).test(text) ? Number(text) : raw;
}

export function readInteger(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	fallback: number,
	range: { min: number; max: number },
): number {
	const raw = ctx.getNodeParameter(field.name, itemIndex, fallback) as unknown;
	const value = decimalText(raw, true);
	if (typeof value !== 'number' || !Number.isInteger(value)) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`expected a whole number, got ${typeName(raw)} (${show(raw)})`,
		);
	}
	if (value < range.min || value > range.max) {
		throw invalidField(ctx, itemIndex, field, `${value} is outside ${range.min} to ${range.max}`);
	}
	return value;
}

const LIST_FIELDS = fieldsIn([RETURN_ALL, LIMIT], ['returnAll', 'limit']);

/** Return All / Limit (returnAllFields): the item's Limit, or undefined with Return All on. */
export function readListLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	if (readBoolean(ctx, itemIndex, LIST_FIELDS.returnAll, RETURN_ALL.default)) return undefined;
	return readInteger(ctx, itemIndex, LIST_FIELDS.limit, LIMIT.default, { min: 1, max: 1_000_000 });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const uuidCheck = patternCheck(
	UUID,
	'is not a UUID',
	'Copy the uuid_config_id from the output of SIP Get, or leave the field empty.',
);

export const checkUuid: TextCheck = (ctx, itemIndex, field, value) =>
	uuidCheck(ctx, itemIndex, field, value).toLowerCase();

/** Any id that goes into a request path, refused now as the path builder would refuse it when sending. */
export const checkPathId: TextCheck = (ctx, itemIndex, field, value) => {
	const problem = pathValueProblem(value);
	if (problem) throw invalidField(ctx, itemIndex, field, problem);
	return value;
};

const pathSegmentCheck = patternCheck(
	PATH_SEGMENT,
	'may only hold letters, digits, dots, dashes and underscores',
);

export const checkPathSegment: TextCheck = (ctx, itemIndex, field, value) =>
	pathSegmentCheck(ctx, itemIndex, field, checkPathId(ctx, itemIndex, field, value));

const E164 = /^\+[1-9]\d{1,14}$/;
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)';
/** sip:<host> as the spec writes it: a DNS name or an IPv4 address, no user part, port or parameters. */
const SIP_URI = new RegExp(
	`^sip:(?:(?:${HOST_LABEL}\\.)*${HOST_LABEL}|(?:${OCTET}\\.){3}${OCTET})$`,
);
/** A host of digits and dots only must be a real IPv4 address, not a DNS name such as 999.1.1.1. */
const NUMERIC_HOST = /^sip:[\d.]+$/;
const SIP_IPV4 = new RegExp(`^sip:(?:${OCTET}\\.){3}${OCTET}$`);

export const checkE164 = patternCheck(
	E164,
	'is not an E.164 phone number',
	'Use the international E.164 form: a plus sign, the country code and the number, digits only, for example +14155550101.',
);

export function checkHttpUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
): string {
	const url = httpUrl(value);
	if (!url) {
		// User info may hold a password, a query or fragment a token, and a value cut to its start would
		// show part of either.
		const [address] = value.split(/[?#]/, 1);
		const shown =
			refusedUserInfo(address) !== undefined
				? 'The value (not shown: it holds a user name or password)'
				: address === value
					? show(value)
					: `${show(address)} (its query not shown)`;
		throw invalidField(ctx, itemIndex, field, `${shown} is not an http:// or https:// URL`);
	}
	const problem = destinationProblem(value, url);
	if (problem) throw invalidField(ctx, itemIndex, field, `it ${problem}`);
	return value;
}

export const checkSipUri = patternCheck(
	{
		test: (value) => SIP_URI.test(value) && !(NUMERIC_HOST.test(value) && !SIP_IPV4.test(value)),
	},
	'is not a SIP URI',
	'Use the form sip:<host>, for example sip:pbx.example.com.',
);

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
/** The hex notations of CSS Color 4: #RGB, #RGBA, #RRGGBB, #RRGGBBAA. */
const ANY_HEX_COLOUR = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

export const checkHexColour = patternCheck(
	HEX_COLOUR,
	'is not a #RRGGBB colour',
	'Use a hex colour such as #1A73E8.',
);

/** A colour the spec calls only "hex colour": every hex form goes on as written, anything else is refused. */
export const checkAnyHexColour = patternCheck(
	ANY_HEX_COLOUR,
	'is not a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA)',
	'Use a hex colour such as #1A73E8 or #FFF; colour names and rgb() are not hex colours.',
);
