import type { INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { isRouteUnknown } from '../../transport';
import { checkOneOf, fieldsIn, invalidField, readBoolean } from '../validation';
import { defineOperation, request, send, toRecords } from '../types';
import { DIRECTIONS, GET_SIP } from './configuration';
import { checkDetachAfterConflict, notFoundError, notFoundItem } from './detachAnswers';
import { phoneNumberField, readPhoneNumber } from './fields';

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
	{
		displayName: 'Not Found Counts as Detached',
		name: 'notFoundAsDetached',
		type: 'boolean',
		default: false,
		description:
			'Whether a 404 (the organization of the API key has no such number) gives an output item with detached false and notFound true instead of an error. Off, a 404 fails the item, naming the number.',
	},
];

const FIELDS = fieldsIn(properties, ['directions', 'notFoundAsDetached']);
const DETACH = request('POST', '/sip/detach2');

interface DetachInput {
	phone_number: string;
	directions: Array<{ type: string }>;
	notFoundAsDetached: boolean;
}

export const detach = defineOperation<DetachInput>({
	name: 'Detach',
	hint: 'Unlink a number from its SIP configuration and notify the carrier',
	action: 'Detach a SIP configuration',
	changesData: 'changes data',
	requests: [DETACH, { ...GET_SIP, when: 'after a 409, to see what is attached' }],
	description: updateDisplayOptions(
		{ show: { resource: ['sip'], operation: ['detach'] } },
		properties,
	),
	// Detaching what is already detached leaves the same state.
	repeatable: true,
	target: ({ phone_number }) => `The SIP configuration of ${phone_number}`,
	recordOf: ({ phone_number }) => phone_number,
	validate(itemIndex) {
		const phone_number = readPhoneNumber.call(this, itemIndex);
		let raw = this.getNodeParameter('directions', itemIndex, []) as unknown;
		if (typeof raw === 'string')
			raw = raw
				.split(',')
				.map((entry) => entry.trim())
				.filter(Boolean);
		if (!Array.isArray(raw) || raw.length === 0)
			throw invalidField(this, itemIndex, FIELDS.directions, 'choose inbound, outbound or both');
		const types = [
			...new Set(
				raw.map((entry) =>
					checkOneOf(this, itemIndex, FIELDS.directions, String(entry), DIRECTIONS),
				),
			),
		];
		const notFoundAsDetached = readBoolean(this, itemIndex, FIELDS.notFoundAsDetached, false);
		return { phone_number, directions: types.map((type) => ({ type })), notFoundAsDetached };
	},
	async execute({ phone_number, directions, notFoundAsDetached }, api, itemIndex) {
		try {
			return toRecords(await send(api, DETACH, { body: { phone_number, directions } }));
		} catch (caught) {
			const error =
				caught instanceof NodeApiError
					? caught
					: new NodeOperationError(this.getNode(), caught as Error);
			const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
			const said = error.errorResponse?.serviceMessage;
			const answered = `Voice AI answered ${status}${typeof said === 'string' ? ` (${said})` : ''}`;
			const names = directions.map(({ type }) => type);
			// A 404 is a number the organization does not have (a typo, another organization's number),
			// unless the base URL itself answers 404 (isRouteUnknown): that error stays as it is.
			if (status === 404 && !isRouteUnknown(error)) {
				if (notFoundAsDetached) return [notFoundItem({ phone_number, names, answered })];
				throw notFoundError(this, { phone_number, names, answered }, said, itemIndex);
			}
			if (status !== 409) throw error;
			return await checkDetachAfterConflict(
				this,
				api,
				{ phone_number, names, answered },
				itemIndex,
			);
		}
	},
});
