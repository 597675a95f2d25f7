import { readListLimit } from '../validation';
import { defineOperation, returnAllFields, toListRecords } from '../types';

export const getAll = defineOperation<{ limit?: number }>({
	name: 'Get Many',
	hint: 'List the agents of the organization',
	action: 'Get many agents',
	summary: "Lists the organization's agents",
	changesData: false,
	requests: [{ method: 'GET', path: '/callback/standardCampaign' }],
	description: returnAllFields('agent', 'getAll', 'agents'),
	repeatable: true,
	validate(itemIndex) {
		return { limit: readListLimit(this, itemIndex) };
	},
	async execute({ limit }, api) {
		return toListRecords(await api('GET', '/callback/standardCampaign'), limit);
	},
});
