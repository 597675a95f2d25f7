import { readListLimit } from '../validation';
import { listIn } from '../../transport/request';
import { defineOperation, request, returnAllFields, send, toRecords } from '../types';

const LIST_NAMES = request('GET', '/contacts/list-names');

export const getListNames = defineOperation<{ limit?: number }>({
	name: 'Get List Names',
	summary: 'List the distinct names of the contact lists, one item per name',
	action: 'Get contact list names',
	changesData: false,
	requests: [LIST_NAMES],
	description: returnAllFields('list names'),
	repeatable: true,
	validate(itemIndex) {
		return { limit: readListLimit(this, itemIndex) };
	},
	async execute({ limit }, api) {
		const body = await send(api, LIST_NAMES);
		const names = listIn(body)?.map((name) => (typeof name === 'string' ? { name } : name));
		return toRecords(names ?? body, limit);
	},
});
