import type { INodeProperties } from 'n8n-workflow';

import { set } from './set.operation';

export const webhookOperations = { set };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Set',
				value: 'set',
				description: "Register the account's webhook URL, replacing the current one (changes data)",
				action: 'Set the account webhook',
			},
		],
		default: 'set',
	},
	...set.description,
];
