import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { FieldRef } from '../../helpers/validation';
import { checkOneOf, checkSipUri, checkUuid, invalidField, readCollection, readInteger, readString } from '../../helpers/validation';
import type { ApiCall } from '../types';
import { defineOperation, toRecords } from '../types';
import type { DirectionChange, DirectionType, SipIntent } from './configuration';
import { DIRECTIONS, buildBody, hideSipPasswords, needsCurrent, readCurrentSip } from './configuration';
import { phoneNumberField, readPhoneNumber, showPasswordsField, readShowPasswords } from './get.operation';

export const SIP_LOGIN_CREDENTIAL = 'voiceAiSipLoginApi';

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
		description: 'SIP login user name; an expression can take it from the input item for bulk provisioning',
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
				description: 'SIP Username and SIP Password of each direction below; expressions from input items work there',
			},
			{
				name: 'SIP Trunk Login Credential',
				value: 'credential',
				description: 'One login kept encrypted by n8n, used for every direction listed below',
			},
		],
		default: 'fields',
		description: 'Where the user name and password of the listed directions come from. See docs/sip-credentials.md for what each keeps out of saved workflows.',
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
				description: 'The uuid_config_id of the number\'s SIP configuration (from SIP Get); the service refuses the update when it does not match',
			},
		],
	},
	showPasswordsField,
];

/** An optional whole number: empty keeps the current value. */
function readOptionalPort(ctx: IExecuteFunctions, itemIndex: number, field: FieldRef): number | undefined {
	const raw = ctx.getNodeParameter(field.name, itemIndex, '') as unknown;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
	return readInteger(ctx, itemIndex, field, 5060, { min: 1, max: 65535 });
}

function readSecureMedia(ctx: IExecuteFunctions, itemIndex: number, field: FieldRef): boolean | undefined {
	const raw = ctx.getNodeParameter(field.name, itemIndex, 'keep') as unknown;
	if (raw === true || raw === 'on' || raw === 'true') return true;
	if (raw === false || raw === 'off' || raw === 'false') return false;
	if (raw === 'keep' || raw === '' || raw === undefined || raw === null) return undefined;
	throw invalidField(ctx, itemIndex, field, `expected keep, on or off (or true/false), got ${JSON.stringify(raw).slice(0, 60)}`);
}

function readDirection(ctx: IExecuteFunctions, itemIndex: number, type: DirectionType, byFields: boolean): DirectionChange {
	const base = `directions.${type}`;
	const label = type === 'inbound' ? 'Inbound' : 'Outbound';
	const ref = (name: string, what: string): FieldRef => ({ name: `${base}.${name}`, label: `${label} ${what}` });
	const endpoint = readString(ctx, itemIndex, ref('sipEndpoint', 'SIP Endpoint'), { required: true });
	const change: DirectionChange = { type, sip_endpoint: checkSipUri(ctx, itemIndex, ref('sipEndpoint', 'SIP Endpoint'), endpoint) };
	const port = readOptionalPort(ctx, itemIndex, ref('port', 'Port'));
	if (port !== undefined) change.port = port;
	// Any name is passed through: the spec shows udp and leaves the other values open.
	const transport = readString(ctx, itemIndex, ref('transport', 'Transport'));
	if (transport) change.transport = transport;
	const secure = readSecureMedia(ctx, itemIndex, ref('secureMedia', 'Secure Media'));
	if (secure !== undefined) change.secure_media = secure;
	if (byFields) {
		const username = readString(ctx, itemIndex, ref('sipUsername', 'SIP Username'));
		if (username) change.sip_username = username;
		const password = readString(ctx, itemIndex, ref('sipPassword', 'SIP Password'), { secret: true });
		if (password) change.sip_password = password;
	}
	return change;
}

/** The credential is read once per execution (in n8n each read is a database query). */
const loginsByExecution = new WeakMap<object, Promise<{ sip_username: string; sip_password: string }>>();

async function readLoginCredential(ctx: IExecuteFunctions, itemIndex: number): Promise<{ sip_username: string; sip_password: string }> {
	if (!ctx.getNode().credentials?.[SIP_LOGIN_CREDENTIAL]) {
		throw invalidField(ctx, itemIndex, { name: 'sipLogin', label: 'SIP Login' }, 'no SIP Trunk Login credential is selected', 'Choose a Voice AI SIP Trunk Login credential on the node, or set SIP Login to "Fields in Each Direction". Nothing was sent to Voice AI.');
	}
	let login = loginsByExecution.get(ctx);
	if (!login) {
		login = ctx.getCredentials(SIP_LOGIN_CREDENTIAL, itemIndex).then((data) => ({
			sip_username: String(data.sipUsername ?? '').trim(),
			sip_password: String(data.sipPassword ?? ''),
		}));
		loginsByExecution.set(ctx, login);
	}
	const { sip_username, sip_password } = await login;
	if (!sip_username || !sip_password) {
		throw new NodeOperationError(ctx.getNode(), 'The SIP Trunk Login credential has an empty user name or password', {
			itemIndex,
			description: 'Open the Voice AI SIP Trunk Login credential and fill in both fields. Nothing was sent to Voice AI.',
		});
	}
	return { sip_username, sip_password };
}

/** Reads and checks everything SIP Update and SIP Compare take from an item; nothing is sent. */
export async function readSipIntent(this: IExecuteFunctions, itemIndex: number): Promise<SipIntent> {
	const phone_number = readPhoneNumber.call(this, itemIndex);
	const intent: SipIntent = { phone_number, changes: [], unlisted: 'keep', showPasswords: readShowPasswords.call(this, itemIndex) };
	const trunkName = readString(this, itemIndex, { name: 'trunkName', label: 'Trunk Name' });
	if (trunkName) intent.trunkName = trunkName;
	const loginField = { name: 'sipLogin', label: 'SIP Login' };
	const login = checkOneOf(this, itemIndex, loginField, readString(this, itemIndex, loginField, { fallback: 'fields', required: true }), ['fields', 'credential']);
	const chosen = readCollection(this, itemIndex, { name: 'directions', label: 'Directions' });
	const types = DIRECTIONS.filter((type) => chosen[type] !== undefined);
	intent.changes = types.map((type) => readDirection(this, itemIndex, type, login === 'fields'));
	if (login === 'credential' && intent.changes.length > 0) {
		const credential = await readLoginCredential(this, itemIndex);
		for (const change of intent.changes) Object.assign(change, credential);
	}
	const extra = readCollection(this, itemIndex, { name: 'additionalFields', label: 'Additional Fields' });
	if ('uuid_config_id' in extra) {
		const field = { name: 'additionalFields.uuid_config_id', label: 'Config ID' };
		const id = readString(this, itemIndex, field);
		if (id) intent.uuid_config_id = checkUuid(this, itemIndex, field, id);
	}
	if (!intent.trunkName && intent.changes.length === 0) {
		throw invalidField(this, itemIndex, { name: 'directions', label: 'Directions' }, 'nothing to update', 'Set a Trunk Name or add an Inbound or Outbound direction.');
	}
	const modeField = { name: 'unlistedDirections', label: 'Directions Not Listed' };
	intent.unlisted = checkOneOf(this, itemIndex, modeField, readString(this, itemIndex, modeField, { fallback: 'keep', required: true }), ['keep', 'detach']);
	return intent;
}

/** GET /sip/{phone}, as sent by SIP Get, Update and Compare. */
export async function fetchSip(api: ApiCall, phoneNumber: string): Promise<unknown> {
	return await api('GET', `/sip/${encodeURIComponent(phoneNumber)}`);
}

export const update = defineOperation<SipIntent>({
	description: updateDisplayOptions({ show: { resource: ['sip'], operation: ['update'] } }, updateProperties),
	// The service compares the wanted state with the current one: sending it twice changes nothing more.
	repeatable: true,
	target: ({ phone_number }) => `The SIP configuration of ${phone_number}`,
	validate: readSipIntent,
	async execute(intent, api, itemIndex) {
		let currentDirections: IDataObject[] | undefined;
		if (needsCurrent(intent)) {
			const current = readCurrentSip(await fetchSip(api, intent.phone_number));
			if (!current.readable) {
				throw new NodeOperationError(this.getNode(), `SIP Update of ${intent.phone_number} wrote nothing: the current SIP configuration could not be read (${current.reason})`, {
					itemIndex,
					description:
						'"Directions Not Listed: Keep" and direction fields left empty need the current configuration, and this answer of GET /sip does not show it in a form the node can read without guessing. To write anyway, list both directions with every field, or choose "Directions Not Listed: Detach" and fill every field of the listed directions.',
				});
			}
			currentDirections = current.directions;
		}
		const body = buildBody(intent, currentDirections);
		const answer = await api('PATCH', '/sip/sip2', body);
		return hideSipPasswords(toRecords(answer), intent.showPasswords, [body]);
	},
});
