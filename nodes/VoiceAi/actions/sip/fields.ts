import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkE164, fieldIn, readBoolean, readString } from '../validation';

export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type DirectionType = (typeof DIRECTIONS)[number];

const phoneNumberField: INodeProperties = {
	displayName: 'Phone Number',
	name: 'phoneNumber',
	type: 'string',
	default: '',
	required: true,
	placeholder: '+14155550101',
	description: 'Phone number of the organization, in E.164 form',
};

export const showPasswordsField: INodeProperties = {
	displayName: 'Show SIP Passwords',
	name: 'showSipPasswords',
	type: 'boolean',
	default: false,
	description:
		'Whether output items show each sip_password in clear. Off: a set password shows as "(set, hidden)" and an empty one stays empty. On: the passwords are saved in the execution data.',
};

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
		description: 'Sent as written: the API shows udp and leaves others open (tcp, tls, ...)',
		hint: 'Empty: the transport the direction has now (udp for a new direction)',
	},
	{
		displayName: 'Secure Media',
		name: 'secureMedia',
		type: 'options',
		options: [
			{ name: 'Keep Current (On for a New Direction)', value: 'keep' },
			{ name: 'Off', value: 'off' },
			{ name: 'On', value: 'on' },
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
		description: 'SIP login user name; an expression can take it from each input item',
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
			'SIP login secret. Prefer an expression reading it from the input item, or SIP Login "SIP Trunk Login Credential": a value typed here is saved in the workflow.',
		hint: 'Empty: the password the direction has now',
	},
];

export const updateProperties: INodeProperties[] = [
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
				description: "Each direction's SIP Username and SIP Password below; expressions work there",
			},
			{
				name: 'SIP Trunk Login Credential',
				value: 'credential',
				// Offered only with the credential that holds the login (the editor filters options so).
				displayOptions: { show: { authentication: ['apiKeyAndSipLogin'] } },
				description:
					"The login of the node's credential (Authentication: API Key and SIP Trunk Login), kept encrypted by n8n, used for every direction listed below",
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
		description:
			'Inbound and/or outbound configuration to attach or change. Fields left empty keep what the direction has now (read with SIP Get first). A direction the number does not have yet gets port 5060, transport udp and secure media on unless you set them.',
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
				name: 'Detach',
				value: 'detach',
				description: 'Send only the listed directions: the service detaches the other one',
			},
			{
				name: 'Keep',
				value: 'keep',
				description:
					'Read the current configuration first and send the other direction along with every field it has; nothing is written when it cannot be read',
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
				description: 'From SIP Get (uuid_config_id); the update is refused when it does not match',
			},
		],
	},
	showPasswordsField,
];

export const sipField = (name: string) => fieldIn([phoneNumberField, ...updateProperties], name);

export const readPhoneNumber = (ctx: IExecuteFunctions, itemIndex: number): string =>
	readString(ctx, itemIndex, sipField('phoneNumber'), { required: true, check: checkE164 });
export const readShowPasswords = (ctx: IExecuteFunctions, itemIndex: number): boolean =>
	readBoolean(ctx, itemIndex, sipField('showSipPasswords'), false);

// Each SIP operation is repeatable: a read, a detach, or an update the service diffs (twice=once).
export const sipForm = (properties: INodeProperties[]) => ({
	description: [phoneNumberField, ...properties],
	repeatable: true as const,
	subjectOf: ({ phone_number }: { phone_number: string }) =>
		`The SIP configuration of ${phone_number}`,
});
