import { readListLimit } from '../../helpers/validation';
import { defineOperation, returnAllFields, toRecords } from '../types';

export const getAll = defineOperation<{ limit?: number }>({
	description: returnAllFields('agent', 'getAll', 'agents'),
	repeatable: true,
	validate(itemIndex) {
		return { limit: readListLimit(this, itemIndex) };
	},
	async execute({ limit }, api) {
		return toRecords(await api('GET', '/callback/standardCampaign'), limit);
	},
});
