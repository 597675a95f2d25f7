import type { INodeProperties } from 'n8n-workflow';

import { create } from './create.operation';
import { getAll } from './getAll.operation';

export const agentOperations = { create, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['agent'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a calling agent (changes data: adds an agent to the organization)',
				action: 'Create an agent',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the agents of the organization',
				action: 'Get many agents',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...create.description,
];
