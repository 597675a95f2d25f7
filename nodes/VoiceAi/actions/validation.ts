// Reading an item's fields: an error names the field (as its property labels it) and the item.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	HALF_CHARACTER,
	LONE_SURROGATE,
	destinationProblem,
	httpUrl,
	refusedUserInfo,
} from '../../../credentials/urlRules';
import { invalidValue, shortened } from '../transport/errors';
import { pathValueProblem } from '../transport/request';
import { returnAllFields } from './types';

export type FieldRef = { name: string; label: string }; // a parameter's path and its editor label

/** `updateFields.header_color`: "Header Color"; `directions.inbound.port`: "Inbound Port". */
function labelOf(properties: readonly INodeProperties[], name: string): string | undefined {
	const [first, ...rest] = name.split('.');
	const property = properties.find((candidate) => candidate.name === first);
	if (!property || rest.length === 0) return property?.displayName;
	if (property.type === 'fixedCollection') {
		const group = property.options?.find((option) => option.name === rest[0]);
		const label = group && 'values' in group && labelOf(group.values, rest.slice(1).join('.'));
		return label ? `${group.displayName} ${label}` : undefined;
	}
	return labelOf((property.options ?? []) as INodeProperties[], rest.join('.'));
}

/** A field labelled by its property; a name without one throws as the operation's module loads. */
export function fieldIn(properties: readonly INodeProperties[], name: string): FieldRef {
	const label = labelOf(properties, name);
	if (label === undefined) throw new Error(`No property named ${name}`);
	return { name, label };
}

export const fieldsIn = <Name extends string>(from: readonly INodeProperties[], names: Name[]) =>
	Object.fromEntries(names.map((name) => [name, fieldIn(from, name)])) as Record<Name, FieldRef>;

const show = (value: unknown) =>
	shortened(
		typeof value === 'string' || typeof value === 'object' ? JSON.stringify(value) : String(value),
		60,
	);
function typeName(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
/** "expected <what>, got a number (42)"; `shown` false leaves the value out (a secret). */
const expected = (what: string, raw: unknown, shown = true) =>
	`expected ${what}, got ${typeName(raw)}${shown ? ` (${show(raw)})` : ''}`;

export const invalidField = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	problem: string,
	hint?: string,
) => invalidValue(ctx.getNode(), itemIndex, field, problem, hint);

/** The value to send, or throws. */
export type TextCheck = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
) => string;
function patternCheck(pattern: RegExp, problem: string, hint?: string): TextCheck {
	return (ctx, itemIndex, field, value) => {
		if (pattern.test(value)) return value;
		throw invalidField(ctx, itemIndex, field, `${show(value)} ${problem}`, hint);
	};
}

interface TextOptions {
	required?: boolean;
	fallback?: string;
	secret?: boolean;
	locator?: boolean; // a resource locator: the value of whichever mode is chosen
	asTyped?: boolean; // free text, sent as typed: only its emptiness is judged without the spaces
	added?: boolean; // added to a collection, so sent: nothing (a misspelt expression?) is refused
	check?: TextCheck; // what a value given must also pass; an empty optional one skips it
}

export function readString(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	options: TextOptions = {},
): string {
	const { fallback = '', locator, secret } = options;
	const raw = ctx.getNodeParameter(field.name, itemIndex, fallback, { extractValue: locator });
	const refuse = (problem: string, hint?: string) =>
		invalidField(ctx, itemIndex, field, problem, hint);
	if ((raw === undefined || raw === null) && options.added)
		throw refuse(
			`its value is ${raw} (an expression that yields nothing?)`,
			`Correct the expression (a misspelt field name yields nothing), give an empty text ({{ "" }}) to clear the field on purpose, or remove the field. Nothing was sent to Voice AI for this item.`,
		);
	const text = raw ?? '';
	if (typeof text !== 'string') throw refuse(expected('text', raw, !secret));
	// A secret is redacted in its URL-encoded form too, which text with half a character lacks.
	if (secret && LONE_SURROGATE.test(text)) throw refuse(`it ${HALF_CHARACTER}`);
	const value = text.trim();
	if (options.required && value === '') throw refuse('a value is required');
	const read = options.asTyped ? text : value;
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
	throw invalidField(ctx, itemIndex, field, expected('true or false', raw));
}

export function checkOneOf<T extends string>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
	allowed: readonly T[],
): T {
	if ((allowed as readonly string[]).includes(value)) return value as T;
	throw invalidField(ctx, itemIndex, field, `${show(value)} is not one of ${allowed.join(', ')}`);
}

export function readCollection(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
): IDataObject {
	const raw = ctx.getNodeParameter(field.name, itemIndex, {}) as unknown;
	if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) return raw as IDataObject;
	throw invalidField(ctx, itemIndex, field, expected('a set of fields', raw, false));
}

type Bounds = { min: number; max: number; decimals?: true };
/** Whole unless `decimals`. Text counts in decimal digits only (not as Number() reads 0x13C4). */
export function readInteger(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	fallback: number,
	bounds: Bounds,
): number {
	const { min, max, decimals } = bounds;
	const raw = ctx.getNodeParameter(field.name, itemIndex, fallback) as unknown;
	const digits = decimals ? /^-?\d+(?:\.\d+)?$/ : /^-?\d+$/;
	const value = typeof raw === 'string' && digits.test(raw.trim()) ? Number(raw) : raw;
	const what = decimals ? 'a number' : 'a whole number';
	if (typeof value !== 'number' || !(decimals ? Number.isFinite(value) : Number.isInteger(value)))
		throw invalidField(ctx, itemIndex, field, expected(what, raw));
	if (value < min || value > max)
		throw invalidField(ctx, itemIndex, field, `${value} is outside ${min} to ${max}`);
	return value;
}

const [RETURN_ALL, LIMIT] = returnAllFields('');
const LIST_FIELDS = fieldsIn([RETURN_ALL, LIMIT], ['returnAll', 'limit']);

export function readListLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	if (readBoolean(ctx, itemIndex, LIST_FIELDS.returnAll, RETURN_ALL.default as boolean)) return;
	const bounds = { min: 1, max: 1_000_000 };
	return readInteger(ctx, itemIndex, LIST_FIELDS.limit, LIMIT.default as number, bounds);
}

const uuidCheck = patternCheck(
	/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
	'is not a UUID',
	'Copy the uuid_config_id from the output of SIP Get, or leave the field empty.',
);
export const checkUuid: TextCheck = (ctx, itemIndex, field, value) =>
	uuidCheck(ctx, itemIndex, field, value).toLowerCase();

/** Any id that goes into a request path, refused now as the path builder would refuse it later. */
export const checkPathId: TextCheck = (ctx, itemIndex, field, value) => {
	const problem = pathValueProblem(value);
	if (problem) throw invalidField(ctx, itemIndex, field, problem);
	return value;
};
const pathSegmentCheck = patternCheck(
	/^[A-Za-z0-9][A-Za-z0-9._-]*$/,
	'may only hold letters, digits, dots, dashes and underscores',
);
export const checkPathSegment: TextCheck = (ctx, itemIndex, field, value) =>
	pathSegmentCheck(ctx, itemIndex, field, checkPathId(ctx, itemIndex, field, value));

export const checkE164 = patternCheck(
	/^\+[1-9]\d{1,14}$/,
	'is not an E.164 phone number',
	'Use the international E.164 form: a plus sign, the country code and the number, digits only, for example +14155550101.',
);

export const checkHttpUrl: TextCheck = (ctx, itemIndex, field, value) => {
	const url = httpUrl(value);
	if (!url) {
		// User info may hold a password, a query or fragment a token: none is shown, not even in part.
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
};

const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)';
/** sip:<host>, no user part, port or parameters; a host of digits and dots is an IPv4 address. */
export const checkSipUri = patternCheck(
	new RegExp(`^sip:(?:(?![\\d.]+$)(?:${HOST_LABEL}\\.)*${HOST_LABEL}|(?:${OCTET}\\.){3}${OCTET})$`),
	'is not a SIP URI',
	'Use the form sip:<host>, for example sip:pbx.example.com.',
);

export const checkHexColour = patternCheck(
	/^#[0-9a-fA-F]{6}$/,
	'is not a #RRGGBB colour',
	'Use a hex colour such as #1A73E8.',
);
/** A colour the spec calls only "hex colour": any hex form of CSS Color 4 goes on as written. */
export const checkAnyHexColour = patternCheck(
	/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/,
	'is not a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA)',
	'Use a hex colour such as #1A73E8 or #FFF; colour names and rgb() are not hex colours.',
);
