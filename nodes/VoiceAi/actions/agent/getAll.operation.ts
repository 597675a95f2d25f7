import { readListLimit } from '../validation';
import { defineOperation, request, returnAllFields, send, toListRecords } from '../types';

const LIST = request('GET', '/callback/standardCampaign');

export const getAll = defineOperation<{ limit?: number }>({
	name: 'Get Many',
	summary: 'List the agents of the organization',
	action: 'Get many agents',
	changesData: false,
	requests: [LIST],
	description: returnAllFields('agents'),
	repeatable: true,
	validate(itemIndex) {
		return { limit: readListLimit(this, itemIndex) };
	},
	async execute({ limit }, api) {
		return toListRecords(await send(api, LIST), limit);
	},
});
