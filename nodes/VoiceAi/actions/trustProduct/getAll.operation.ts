import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkPathSegment, fieldsIn, readListLimit, readString } from '../validation';
import { defineOperation, request, returnAllFields, send, toListRecords } from '../types';

const LIST = request('GET', '/agency/{carrier}/trust-products');

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

const { carrier: CARRIER } = fieldsIn(properties, ['carrier']);

export const getAll = defineOperation<{ carrier: string; limit?: number }>({
	name: 'Get Many',
	hint: 'List the caller-identity trust products (SHAKEN/STIR, Voice Integrity, CNAME) held with a carrier',
	action: 'Get many trust products',
	changesData: false,
	requests: [LIST],
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
		const carrier = readString(this, itemIndex, CARRIER, {
			required: true,
			fallback: 'twilio',
			check: checkPathSegment,
		});
		return { carrier, limit: readListLimit(this, itemIndex) };
	},
	async execute({ carrier, limit }, api) {
		return toListRecords(
			await send(api, LIST, { values: { carrier: { field: CARRIER, value: carrier } } }),
			limit,
		);
	},
});
