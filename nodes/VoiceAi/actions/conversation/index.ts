import { defineResource } from '../types';
import { passOnce } from './passOnce.operation';

export const conversation = defineResource('conversation', 'Conversation', { passOnce });
