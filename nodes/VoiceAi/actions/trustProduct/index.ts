import { defineResource } from '../resource';
import { getAll } from './getAll.operation';

export const trustProduct = defineResource({
	value: 'trustProduct',
	name: 'Trust Product',
	operations: { getAll },
});
