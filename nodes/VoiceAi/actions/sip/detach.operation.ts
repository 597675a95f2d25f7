import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { checkOneOf, invalidField } from '../validation';
import { defineOperation, toRecords } from '../types';
import { phoneNumberField, readPhoneNumber } from './fields';

const DIRECTIONS = ['inbound', 'outbound'] as const;

const properties: INodeProperties[] = [
	phoneNumberField,
	{
		displayName: 'Directions',
		name: 'directions',
		type: 'multiOptions',
		options: [
			{ name: 'Inbound', value: 'inbound' },
			{ name: 'Outbound', value: 'outbound' },
		],
		default: ['inbound', 'outbound'],
		required: true,
		description: 'Which directions to unlink from the number',
	},
];

export const detach = defineOperation<{
	phone_number: string;
	directions: Array<{ type: string }>;
}>({
	description: updateDisplayOptions(
		{ show: { resource: ['sip'], operation: ['detach'] } },
		properties,
	),
	// Detaching what is already detached leaves the same state.
	repeatable: true,
	target: ({ phone_number }) => `The SIP configuration of ${phone_number}`,
	validate(itemIndex) {
		const phone_number = readPhoneNumber.call(this, itemIndex);
		const field = { name: 'directions', label: 'Directions' };
		let raw = this.getNodeParameter('directions', itemIndex, []) as unknown;
		if (typeof raw === 'string')
			raw = raw
				.split(',')
				.map((entry) => entry.trim())
				.filter(Boolean);
		if (!Array.isArray(raw) || raw.length === 0)
			throw invalidField(this, itemIndex, field, 'choose inbound, outbound or both');
		const types = [
			...new Set(raw.map((entry) => checkOneOf(this, itemIndex, field, String(entry), DIRECTIONS))),
		];
		return { phone_number, directions: types.map((type) => ({ type })) };
	},
	async execute(body, api) {
		try {
			return toRecords(await api('POST', '/sip/detach2', { ...body }));
		} catch (caught) {
			const error =
				caught instanceof NodeApiError
					? caught
					: new NodeOperationError(this.getNode(), caught as Error);
			const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
			if (status !== 404 && status !== 409) throw error;
			// A detach repeated after its answer was lost finds nothing attached: the wanted state holds.
			const said = (error.errorResponse as IDataObject | undefined)?.serviceMessage;
			return [
				{
					success: true,
					status,
					phone_number: body.phone_number,
					directions: body.directions.map(({ type }) => type),
					note:
						`Voice AI answered ${status}${typeof said === 'string' ? ` (${said})` : ''}: nothing of these directions is attached to the number, ` +
						'so it counts as detached (for example when a detach is repeated after its answer was lost). If you expected it to be attached, check that the number belongs to the organization of the API key.',
				},
			];
		}
	},
});
