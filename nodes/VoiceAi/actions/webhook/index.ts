import { defineResource } from '../types';
import { set } from './set.operation';

export const webhook = defineResource({ value: 'webhook', name: 'Webhook', operations: { set } });
