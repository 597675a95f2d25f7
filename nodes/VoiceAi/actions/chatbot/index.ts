import { defineResource } from '../types';
import { update } from './update.operation';

export const chatbot = defineResource('chatbot', 'Chatbot', { update });
