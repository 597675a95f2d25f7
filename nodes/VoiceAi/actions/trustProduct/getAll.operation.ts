import type { INodeProperties } from 'n8n-workflow';

import { checkPathSegment, fieldIn, readListLimit, readString } from '../validation';
import { defineOperation, request, returnAllFields, send, toListRecords } from '../types';

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

const LIST = request('GET', '/agency/{carrier}/trust-products');
const CARRIER = fieldIn(properties, 'carrier');

export const getAll = defineOperation<{ carrier: string; limit?: number }>({
	name: 'Get Many',
	summary:
		'List the caller-identity trust products (SHAKEN/STIR, Voice Integrity, CNAME) held with a carrier',
	action: 'Get many trust products',
	changesData: false,
	requests: [LIST],
	description: [...properties, ...returnAllFields('trust products')],
	repeatable: true,
	subjectOf: ({ carrier }) => `Carrier "${carrier}"`,
	validate(itemIndex) {
		const options = { required: true, fallback: 'twilio', check: checkPathSegment };
		const carrier = readString(this, itemIndex, CARRIER, options);
		return { carrier, limit: readListLimit(this, itemIndex) };
	},
	async execute({ carrier, limit }, api) {
		const values = { carrier: { field: CARRIER, value: carrier } };
		return toListRecords(await send(api, LIST, { values }), limit);
	},
});
