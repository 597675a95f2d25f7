import { defineResource } from '../resource';
import { detach } from './detach.operation';
import { get } from './get.operation';
import { compare, update } from './update.operation';

export const sip = defineResource({
	value: 'sip',
	name: 'SIP',
	operations: { get, update, compare, detach },
});
