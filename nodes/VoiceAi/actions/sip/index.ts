import type { INodeProperties } from 'n8n-workflow';

import { detach } from './detach.operation';
import { get } from './get.operation';
import { update } from './update.operation';

export const sipOperations = { detach, get, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sip'] } },
		options: [
			{
				name: 'Detach',
				value: 'detach',
				description: 'Unlink a number from its SIP configuration and notify the carrier (changes data)',
				action: 'Detach a SIP configuration',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get the inbound and outbound SIP configuration of a number',
				action: 'Get a SIP configuration',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Rename the trunk and/or attach or change its directions; the service runs the needed carrier operations (changes data)',
				action: 'Update a SIP configuration',
			},
		],
		default: 'get',
	},
	...get.description,
	...update.description,
	...detach.description,
];
