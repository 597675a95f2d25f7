import type { INodeProperties } from 'n8n-workflow';

import { compare } from './compare.operation';
import { detach } from './detach.operation';
import { get } from './get.operation';
import { update } from './update.operation';

export const sipOperations = { compare, detach, get, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sip'] } },
		options: [
			{
				name: 'Compare',
				value: 'compare',
				description:
					'Dry run of Update: the body it would send and what it would change, writing nothing',
				action: 'Compare a SIP configuration with wanted settings',
			},
			{
				name: 'Detach',
				value: 'detach',
				description:
					'Unlink a number from its SIP configuration and notify the carrier (changes data)',
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
				description:
					'Rename the trunk and/or attach or change its directions; the service runs the needed carrier operations (changes data)',
				action: 'Update a SIP configuration',
			},
		],
		default: 'get',
	},
	...get.description,
	...update.description,
	...compare.description,
	...detach.description,
];
