import type { IExecuteFunctions } from 'n8n-workflow';

import type { FieldRef } from './fieldError';
import { invalidField, show } from './fieldError';

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
/** The hex notations of CSS Color 4: #RGB, #RGBA, #RRGGBB, #RRGGBBAA. */
const ANY_HEX_COLOUR = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

export function checkHexColour(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
): string {
	if (!HEX_COLOUR.test(value)) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`${show(value)} is not a #RRGGBB colour`,
			'Use a hex colour such as #1A73E8.',
		);
	}
	return value;
}

/** A colour the spec calls only "hex colour": every hex form goes on as written, anything else is refused. */
export function checkAnyHexColour(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
): string {
	if (!ANY_HEX_COLOUR.test(value)) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`${show(value)} is not a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA)`,
			'Use a hex colour such as #1A73E8 or #FFF; colour names and rgb() are not hex colours.',
		);
	}
	return value;
}
