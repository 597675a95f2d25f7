import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { HALF_CHARACTER, LONE_SURROGATE } from '../../transport';
import type { FieldRef } from './fieldError';
import { invalidField, show, typeName } from './fieldError';

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
	return options.asTyped ? raw : value;
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
