import { defineResource } from '../types';
import { getListNames } from './getListNames.operation';

export const contact = defineResource('contact', 'Contact', { getListNames });
