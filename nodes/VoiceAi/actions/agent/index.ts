import { defineResource } from '../types';
import { create } from './create.operation';
import { getAll } from './getAll.operation';

export const agent = defineResource('agent', 'Agent', { getAll, create });
