import type { INodeProperties } from 'n8n-workflow';

import { update } from './update.operation';

export const chatbotOperations = { update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['chatbot'] } },
		options: [
			{
				name: 'Update',
				value: 'update',
				description: 'Change the settings and images of a chatbot widget (changes data)',
				action: 'Update a chatbot',
			},
		],
		default: 'update',
	},
	...update.description,
];
