import { defineResource } from '../types';
import { set } from './set.operation';

export const webhook = defineResource('webhook', 'Webhook', { set });
