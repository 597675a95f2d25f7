import { defineResource } from '../types';
import { passOnce } from './passOnce.operation';

export const conversation = defineResource({
	value: 'conversation',
	name: 'Conversation',
	operations: { passOnce },
});
