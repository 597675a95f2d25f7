import type { IExecuteFunctions } from 'n8n-workflow';

import type { FieldRef } from './fieldError';
import { invalidField, show, typeName } from './fieldError';
import { readBoolean } from './readers';

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

/** Return All / Limit as n8n list operations offer them. */
export function readListLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const returnAll = readBoolean(ctx, itemIndex, { name: 'returnAll', label: 'Return All' }, false);
	if (returnAll) return undefined;
	return readInteger(ctx, itemIndex, { name: 'limit', label: 'Limit' }, 50, {
		min: 1,
		max: 1_000_000,
	});
}
