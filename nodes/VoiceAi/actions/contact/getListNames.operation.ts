import { readListLimit } from '../validation';
import { listIn } from '../../transport';
import { defineOperation, request, returnAllFields, send, toRecords } from '../types';

const LIST_NAMES = request('GET', '/contacts/list-names');

export const getListNames = defineOperation<{ limit?: number }>({
	name: 'Get List Names',
	hint: 'List the distinct names of the contact lists, one item per name',
	action: 'Get contact list names',
	changesData: false,
	requests: [LIST_NAMES],
	description: returnAllFields('contact', 'getListNames', 'list names'),
	repeatable: true,
	validate(itemIndex) {
		return { limit: readListLimit(this, itemIndex) };
	},
	async execute({ limit }, api) {
		const body = await send(api, LIST_NAMES);
		const list = listIn(body);
		if (!list) return toRecords(body);
		const names = list.map((name) => (typeof name === 'string' ? { name } : toRecords(name)[0]));
		return limit === undefined ? names : names.slice(0, limit);
	},
});
