import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FieldRef } from '../../helpers/validation';
import {
	checkOneOf,
	checkSipUri,
	checkUuid,
	invalidField,
	readBoolean,
	readCollection,
	readInteger,
	readString,
} from '../../helpers/validation';
import { defineOperation, toRecords } from '../types';
import { phoneNumberField, readPhoneNumber } from './get.operation';

const TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
const DIRECTIONS = ['inbound', 'outbound'] as const;

const directionValues: INodeProperties[] = [
	{
		displayName: 'SIP Endpoint',
		name: 'sipEndpoint',
		type: 'string',
		default: '',
		placeholder: 'sip:pbx.example.com',
		description: 'SIP URI of the endpoint, form sip:&lt;host&gt;',
	},
	{
		displayName: 'Port',
		name: 'port',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 65535 },
		default: 5060,
	},
	{
		displayName: 'Transport',
		name: 'transport',
		type: 'options',
		options: [
			{ name: 'UDP', value: 'udp' },
			{ name: 'TCP', value: 'tcp' },
			{ name: 'TLS', value: 'tls' },
		],
		default: 'udp',
	},
	{
		displayName: 'Secure Media',
		name: 'secureMedia',
		type: 'boolean',
		default: true,
		description: 'Whether media (SRTP) is secured',
	},
	{
		displayName: 'SIP Username',
		name: 'sipUsername',
		type: 'string',
		default: '',
		description: 'SIP credential user name; left empty, it is not sent',
	},
	{
		displayName: 'SIP Password',
		name: 'sipPassword',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description: 'SIP credential secret; left empty, it is not sent and the current one stays',
	},
];

const properties: INodeProperties[] = [
	phoneNumberField,
	{
		displayName: 'Trunk Name',
		name: 'trunkName',
		type: 'string',
		default: '',
		description: 'New internal name of the trunk; left empty, the name stays',
	},
	{
		displayName: 'Directions',
		name: 'directions',
		type: 'fixedCollection',
		placeholder: 'Add Direction',
		default: {},
		description: 'Inbound and/or outbound configuration to attach or change',
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
				description: 'Read the current configuration first and send the other direction along unchanged',
			},
			{
				name: 'Detach',
				value: 'detach',
				description: 'Send only the listed directions: the service detaches the other one',
			},
		],
		default: 'keep',
		description:
			'The service takes the directions sent as the complete wanted set. Applies only when at least one direction is listed.',
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
				description: 'The uuid_config_id of the number\'s SIP configuration (from SIP Get); the service refuses the update when it does not match',
			},
		],
	},
];

function readDirection(ctx: IExecuteFunctions, itemIndex: number, type: (typeof DIRECTIONS)[number]): IDataObject {
	const base = `directions.${type}`;
	const label = type === 'inbound' ? 'Inbound' : 'Outbound';
	const ref = (name: string, what: string): FieldRef => ({ name: `${base}.${name}`, label: `${label} ${what}` });
	const endpoint = readString(ctx, itemIndex, ref('sipEndpoint', 'SIP Endpoint'), { required: true });
	const options: IDataObject = {
		port: readInteger(ctx, itemIndex, ref('port', 'Port'), 5060, { min: 1, max: 65535 }),
		transport: checkOneOf(ctx, itemIndex, ref('transport', 'Transport'), readString(ctx, itemIndex, ref('transport', 'Transport'), { required: true, fallback: 'udp' }).toLowerCase(), TRANSPORTS),
		secure_media: readBoolean(ctx, itemIndex, ref('secureMedia', 'Secure Media'), true),
	};
	const username = readString(ctx, itemIndex, ref('sipUsername', 'SIP Username'));
	if (username) options.sip_username = username;
	const password = readString(ctx, itemIndex, ref('sipPassword', 'SIP Password'), { secret: true });
	if (password) options.sip_password = password;
	return { type, sip_endpoint: checkSipUri(ctx, itemIndex, ref('sipEndpoint', 'SIP Endpoint'), endpoint), options };
}

interface UpdateSipInput {
	body: IDataObject;
	keepUnlisted: boolean;
}

/** The current direction as the service showed it, minus what it keeps by itself (user name, password). */
function unchanged(direction: IDataObject): IDataObject {
	const options = (direction.options ?? {}) as IDataObject;
	return {
		type: direction.type,
		sip_endpoint: direction.sip_endpoint,
		options: { port: options.port, transport: options.transport, secure_media: options.secure_media },
	};
}

export const update = defineOperation<UpdateSipInput>({
	description: updateDisplayOptions({ show: { resource: ['sip'], operation: ['update'] } }, properties),
	// The service compares the wanted state with the current one: sending it twice changes nothing more.
	repeatable: true,
	target: ({ body }) => `The SIP configuration of ${String(body.phone_number)}`,
	validate(itemIndex) {
		const body: IDataObject = { phone_number: readPhoneNumber.call(this, itemIndex) };
		const trunkName = readString(this, itemIndex, { name: 'trunkName', label: 'Trunk Name' });
		if (trunkName) body.trunkName = trunkName;
		const chosen = readCollection(this, itemIndex, { name: 'directions', label: 'Directions' });
		const directions = DIRECTIONS.filter((type) => chosen[type] !== undefined).map((type) => readDirection(this, itemIndex, type));
		if (directions.length > 0) body.directions = directions;
		const extra = readCollection(this, itemIndex, { name: 'additionalFields', label: 'Additional Fields' });
		if ('uuid_config_id' in extra) {
			const field = { name: 'additionalFields.uuid_config_id', label: 'Config ID' };
			const id = readString(this, itemIndex, field);
			if (id) body.uuid_config_id = checkUuid(this, itemIndex, field, id);
		}
		if (!body.trunkName && !body.directions) {
			throw invalidField(this, itemIndex, { name: 'directions', label: 'Directions' }, 'nothing to update', 'Set a Trunk Name or add an Inbound or Outbound direction.');
		}
		const mode = checkOneOf(this, itemIndex, { name: 'unlistedDirections', label: 'Directions Not Listed' }, readString(this, itemIndex, { name: 'unlistedDirections', label: 'Directions Not Listed' }, { fallback: 'keep', required: true }), ['keep', 'detach']);
		return { body, keepUnlisted: mode === 'keep' && directions.length > 0 && directions.length < DIRECTIONS.length };
	},
	async execute({ body, keepUnlisted }, api) {
		if (keepUnlisted) {
			const current = (await api('GET', `/sip/${encodeURIComponent(String(body.phone_number))}`)) as IDataObject;
			const listed = (body.directions as IDataObject[]).map((direction) => direction.type);
			const others = ((current?.directions ?? []) as IDataObject[]).filter((direction) => !listed.includes(direction.type));
			body = { ...body, directions: [...(body.directions as IDataObject[]), ...others.map(unchanged)] };
		}
		return toRecords(await api('PATCH', '/sip/sip2', body));
	},
});
