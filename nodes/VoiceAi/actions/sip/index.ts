import { defineResource } from '../types';
import { compare } from './compare.operation';
import { detach } from './detach.operation';
import { get } from './get.operation';
import { update } from './update.operation';

export const sip = defineResource({
	value: 'sip',
	name: 'SIP',
	operations: { get, update, compare, detach },
});
