import { defineResource } from '../types';
import { getAll } from './getAll.operation';

export const trustProduct = defineResource({
	value: 'trustProduct',
	name: 'Trust Product',
	operations: { getAll },
});
