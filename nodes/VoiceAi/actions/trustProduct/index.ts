import { defineResource } from '../types';
import { getAll } from './getAll.operation';

export const trustProduct = defineResource('trustProduct', 'Trust Product', { getAll });
