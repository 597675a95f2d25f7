import type { INodeProperties } from 'n8n-workflow';

import { getAll } from './getAll.operation';

export const trustProductOperations = { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['trustProduct'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the caller-identity trust products (SHAKEN/STIR, Voice Integrity, CNAME) held with a carrier',
				action: 'Get many trust products',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
