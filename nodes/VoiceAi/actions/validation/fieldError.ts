import type { IExecuteFunctions, INodeProperties, NodeOperationError } from 'n8n-workflow';

import { invalidValue, shortened } from '../../transport';

export interface FieldRef {
	/** The parameter's name in the node, e.g. `updateFields.header_color`. */
	name: string;
	/** What the user sees in the editor, e.g. `Header Color`. */
	label: string;
}

/** The property of `name` (`updateFields.header_color`: the option of a collection), if there is one. */
function propertyNamed(
	properties: readonly INodeProperties[],
	name: string,
): INodeProperties | undefined {
	const [first, ...rest] = name.split('.');
	const property = properties.find((candidate) => candidate.name === first);
	if (!property || rest.length === 0) return property;
	const options = (property.options ?? []).filter(
		(option): option is INodeProperties => 'type' in option,
	);
	return propertyNamed(options, rest.join('.'));
}

/**
 * The fields an operation reads, each labelled with its property's displayName, so a label is written
 * once, in the property. A name without a property throws when the operation's module loads.
 */
export function fieldsIn<Name extends string>(
	properties: readonly INodeProperties[],
	names: readonly Name[],
): Record<Name, FieldRef> {
	const fields = {} as Record<Name, FieldRef>;
	for (const name of names) {
		const property = propertyNamed(properties, name);
		if (!property) throw new Error(`No property named ${name}`);
		fields[name] = { name, label: property.displayName };
	}
	return fields;
}

export function show(value: unknown): string {
	const text =
		typeof value === 'string' || (typeof value === 'object' && value !== null)
			? JSON.stringify(value)
			: String(value);
	return shortened(text, 60);
}

export function typeName(value: unknown): string {
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
export function patternCheck(
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
