import { defineResource } from '../resource';
import { passOnce } from './passOnce.operation';

export const conversation = defineResource({
	value: 'conversation',
	name: 'Conversation',
	operations: { passOnce },
});
