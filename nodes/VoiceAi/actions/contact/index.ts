import type { INodeProperties } from 'n8n-workflow';

import { getListNames } from './getListNames.operation';

export const contactOperations = { getListNames };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contact'] } },
		options: [
			{
				name: 'Get List Names',
				value: 'getListNames',
				description: 'List the distinct names of the contact lists, one item per name',
				action: 'Get contact list names',
			},
		],
		default: 'getListNames',
	},
	...getListNames.description,
];
