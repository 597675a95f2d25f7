import type { INodeProperties } from 'n8n-workflow';

import { passOnce } from './passOnce.operation';

export const conversationOperations = { passOnce };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['conversation'] } },
		options: [
			{
				name: 'Pass Once',
				value: 'passOnce',
				description:
					'Pass each conversation on once; drop items whose conversation this workflow has already passed',
				action: 'Pass each conversation once',
			},
		],
		default: 'passOnce',
	},
	...passOnce.description,
];
