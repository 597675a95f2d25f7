import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkPathSegment, readListLimit, readString } from '../validation';
import { apiPath } from '../../transport';
import { defineOperation, returnAllFields, toListRecords } from '../types';

const properties: INodeProperties[] = [
	{
		displayName: 'Carrier',
		name: 'carrier',
		type: 'string',
		default: 'twilio',
		required: true,
		description: 'Name of the external telephony carrier that holds the trust products',
	},
];

export const getAll = defineOperation<{ carrier: string; limit?: number }>({
	name: 'Get Many',
	hint: 'List the caller-identity trust products (SHAKEN/STIR, Voice Integrity, CNAME) held with a carrier',
	action: 'Get many trust products',
	summary: 'Lists caller-identity trust products',
	changesData: false,
	requests: [{ method: 'GET', path: '/agency/{carrier}/trust-products' }],
	description: [
		...updateDisplayOptions(
			{ show: { resource: ['trustProduct'], operation: ['getAll'] } },
			properties,
		),
		...returnAllFields('trustProduct', 'getAll', 'trust products'),
	],
	repeatable: true,
	target: ({ carrier }) => `Carrier "${carrier}"`,
	validate(itemIndex) {
		const field = { name: 'carrier', label: 'Carrier' };
		const carrier = checkPathSegment(
			this,
			itemIndex,
			field,
			readString(this, itemIndex, field, { required: true, fallback: 'twilio' }),
		);
		return { carrier, limit: readListLimit(this, itemIndex) };
	},
	async execute({ carrier, limit }, api) {
		return toListRecords(
			await api(
				'GET',
				apiPath`/agency/${{ field: { name: 'carrier', label: 'Carrier' }, value: carrier }}/trust-products`,
			),
			limit,
		);
	},
});
