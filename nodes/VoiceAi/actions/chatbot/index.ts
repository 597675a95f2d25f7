import { defineResource } from '../types';
import { update } from './update.operation';

export const chatbot = defineResource({
	value: 'chatbot',
	name: 'Chatbot',
	operations: { update },
});
