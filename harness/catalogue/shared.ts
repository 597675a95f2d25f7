import type { ExampleResult, InvalidInput, Json } from './types';

export type { Json } from './types';

/** Invalid values: `bad` goes through an expression into item 2, `literal` is typed in (see InvalidInput). */
export const bad = (
	path: string,
	label: string,
	values: Json[],
	extra: Partial<InvalidInput> = {},
) => values.map((value): InvalidInput => ({ path, label, bad: value, ...extra }));
export const literal = (
	path: string,
	label: string,
	values: string[],
	extra: Partial<InvalidInput> = {},
) => bad(path, label, values, { literal: true, ...extra });

export const PHONES_LITERAL = [
	'4155550101',
	'+1 415 555 0101',
	'+0123456',
	'+',
	'+1234567890123456',
	'+1-415-555-0101',
	'tel:+14155550101',
	'+14155550101;ext=2',
];
export const PHONES_TYPED: Json[] = [
	14155550101,
	{ number: '+14155550101' },
	['+14155550101'],
	true,
	null,
	'',
];
/** Return All and Limit of a list operation. */
export const listInvalid = (limits: Json[], returnAlls: Json[]) => [
	...bad('limit', 'Limit', [...limits, '0x10', '0b11', '1e2']),
	...bad('returnAll', 'Return All', returnAlls),
];

export const jsonOf = (result: ExampleResult) => result.items.map((item) => item.json);
