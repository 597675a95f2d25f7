import { readListLimit } from '../validation';
import { defineOperation, returnAllFields, toListRecords } from '../types';

export const getAll = defineOperation<{ limit?: number }>({
	description: returnAllFields('agent', 'getAll', 'agents'),
	repeatable: true,
	validate(itemIndex) {
		return { limit: readListLimit(this, itemIndex) };
	},
	async execute({ limit }, api) {
		return toListRecords(await api('GET', '/callback/standardCampaign'), limit);
	},
});
