import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkOneOf, invalidField } from '../../helpers/validation';
import { defineOperation, toRecords } from '../types';
import { phoneNumberField, readPhoneNumber } from './get.operation';

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

export const detach = defineOperation<{ phone_number: string; directions: Array<{ type: string }> }>({
	description: updateDisplayOptions({ show: { resource: ['sip'], operation: ['detach'] } }, properties),
	// Detaching what is already detached leaves the same state.
	repeatable: true,
	target: ({ phone_number }) => `The SIP configuration of ${phone_number}`,
	validate(itemIndex) {
		const phone_number = readPhoneNumber.call(this, itemIndex);
		const field = { name: 'directions', label: 'Directions' };
		let raw = this.getNodeParameter('directions', itemIndex, []) as unknown;
		if (typeof raw === 'string') raw = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
		if (!Array.isArray(raw) || raw.length === 0) throw invalidField(this, itemIndex, field, 'choose inbound, outbound or both');
		const types = [...new Set(raw.map((entry) => checkOneOf(this, itemIndex, field, String(entry), DIRECTIONS)))];
		return { phone_number, directions: types.map((type) => ({ type })) };
	},
	async execute(body, api) {
		return toRecords(await api('POST', '/sip/detach2', { ...body }));
	},
});
