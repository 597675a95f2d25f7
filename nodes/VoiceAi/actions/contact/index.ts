import { defineResource } from '../types';
import { getListNames } from './getListNames.operation';

export const contact = defineResource({
	value: 'contact',
	name: 'Contact',
	operations: { getListNames },
});
