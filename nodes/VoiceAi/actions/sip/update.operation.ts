import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { defineOperation, toRecords } from '../types';
import type { SipIntent } from './configuration';
import { buildBody, hideSipPasswords, needsCurrent, readCurrentSip } from './configuration';
import { fetchSip, phoneNumberField, showPasswordsField } from './get.operation';
import { readSipIntent } from './readIntent';

const directionValues: INodeProperties[] = [
	{
		displayName: 'SIP Endpoint',
		name: 'sipEndpoint',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'sip:pbx.example.com',
		description: 'SIP URI of the endpoint, form sip:&lt;host&gt;',
	},
	{
		displayName: 'Port',
		name: 'port',
		type: 'string',
		default: '',
		placeholder: '5060',
		description: 'SIP port, 1 to 65535',
		hint: 'Empty: the port the direction has now (5060 for a new direction)',
	},
	{
		displayName: 'Transport',
		name: 'transport',
		type: 'string',
		default: '',
		placeholder: 'udp',
		description:
			'Transport protocol name, sent as written. The API documentation shows udp and does not list the other values, so any name your trunk uses (for example tcp or tls) is passed through.',
		hint: 'Empty: the transport the direction has now (udp for a new direction)',
	},
	{
		displayName: 'Secure Media',
		name: 'secureMedia',
		type: 'options',
		options: [
			{ name: 'Keep Current (On for a New Direction)', value: 'keep' },
			{ name: 'On', value: 'on' },
			{ name: 'Off', value: 'off' },
		],
		default: 'keep',
		description: 'Whether media (SRTP) is secured',
	},
	{
		displayName: 'SIP Username',
		name: 'sipUsername',
		type: 'string',
		default: '',
		displayOptions: { show: { '/sipLogin': ['fields'] } },
		description:
			'SIP login user name; an expression can take it from the input item for bulk provisioning',
		hint: 'Empty: the user name the direction has now',
	},
	{
		displayName: 'SIP Password',
		name: 'sipPassword',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		displayOptions: { show: { '/sipLogin': ['fields'] } },
		description:
			'SIP login secret. Prefer an expression reading it from the input item, or the SIP Trunk Login credential: a value typed here is saved in the workflow.',
		hint: 'Empty: the password the direction has now',
	},
];

export const updateProperties: INodeProperties[] = [
	phoneNumberField,
	{
		displayName: 'Trunk Name',
		name: 'trunkName',
		type: 'string',
		default: '',
		description: 'New internal name of the trunk; left empty, the name stays',
	},
	{
		displayName: 'SIP Login',
		name: 'sipLogin',
		type: 'options',
		options: [
			{
				name: 'Fields in Each Direction',
				value: 'fields',
				description:
					'SIP Username and SIP Password of each direction below; expressions from input items work there',
			},
			{
				name: 'SIP Trunk Login Credential',
				value: 'credential',
				description: 'One login kept encrypted by n8n, used for every direction listed below',
			},
		],
		default: 'fields',
		description:
			'Where the user name and password of the listed directions come from. See docs/sip-credentials.md for what each keeps out of saved workflows.',
	},
	{
		displayName: 'Directions',
		name: 'directions',
		type: 'fixedCollection',
		placeholder: 'Add Direction',
		default: {},
		description: 'Inbound and/or outbound configuration to attach or change',
		hint: 'Fields left empty keep what the direction has now (read with SIP Get first). A direction the number does not have yet gets port 5060, transport udp and secure media on unless you set them.',
		options: [
			{ displayName: 'Inbound', name: 'inbound', values: directionValues },
			{ displayName: 'Outbound', name: 'outbound', values: directionValues },
		],
	},
	{
		displayName: 'Directions Not Listed',
		name: 'unlistedDirections',
		type: 'options',
		options: [
			{
				name: 'Keep',
				value: 'keep',
				description:
					'Read the current configuration first and send the other direction along with every field it has; nothing is written when it cannot be read',
			},
			{
				name: 'Detach',
				value: 'detach',
				description: 'Send only the listed directions: the service detaches the other one',
			},
		],
		default: 'keep',
		description: 'The service takes the directions sent as the complete wanted set',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Config ID',
				name: 'uuid_config_id',
				type: 'string',
				default: '',
				description:
					"The uuid_config_id of the number's SIP configuration (from SIP Get); the service refuses the update when it does not match",
			},
		],
	},
	showPasswordsField,
];

export const update = defineOperation<SipIntent>({
	description: updateDisplayOptions(
		{ show: { resource: ['sip'], operation: ['update'] } },
		updateProperties,
	),
	// The service compares the wanted state with the current one: sending it twice changes nothing more.
	repeatable: true,
	target: ({ phone_number }) => `The SIP configuration of ${phone_number}`,
	validate: readSipIntent,
	async execute(intent, api, itemIndex) {
		let currentDirections: IDataObject[] | undefined;
		if (needsCurrent(intent)) {
			const current = readCurrentSip(await fetchSip(api, intent.phone_number));
			if (!current.readable) {
				throw new NodeOperationError(
					this.getNode(),
					`SIP Update of ${intent.phone_number} wrote nothing: the current SIP configuration could not be read (${current.reason})`,
					{
						itemIndex,
						description:
							'"Directions Not Listed: Keep" and direction fields left empty need the current configuration, and this answer of GET /sip does not show it in a form the node can read without guessing. To write anyway, list both directions with every field, or choose "Directions Not Listed: Detach" and fill every field of the listed directions.',
					},
				);
			}
			currentDirections = current.directions;
		}
		const body = buildBody(intent, currentDirections);
		const answer = await api('PATCH', '/sip/sip2', body);
		return hideSipPasswords(toRecords(answer), intent.showPasswords, [body]);
	},
});
