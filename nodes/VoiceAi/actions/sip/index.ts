import { defineResource } from '../types';
import { compare } from './compare.operation';
import { detach } from './detach.operation';
import { get } from './get.operation';
import { update } from './update.operation';

export const sip = defineResource('sip', 'SIP', { get, update, compare, detach });
