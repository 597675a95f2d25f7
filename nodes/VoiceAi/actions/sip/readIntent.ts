import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { AUTHENTICATION, authenticationOf } from '../../transport';
import type { FieldRef } from '../validation';
import {
	checkOneOf,
	checkSipUri,
	checkUuid,
	fieldIn,
	fieldsIn,
	invalidField,
	readCollection,
	readInteger,
	readString,
} from '../validation';
import type { DirectionChange, DirectionType, SipIntent } from './configuration';
import { DIRECTIONS } from './configuration';
import { readPhoneNumber, readShowPasswords, updateProperties } from './fields';

// Reads what SIP Update and SIP Compare take from an item (fields: fields.ts, updateProperties). An empty
// field means "keep what the direction has now"; nothing here is sent.

const SIP_LOGIN_CREDENTIAL = AUTHENTICATION.apiKeyAndSipLogin;

const FIELDS = fieldsIn(updateProperties, [
	'trunkName',
	'sipLogin',
	'directions',
	'unlistedDirections',
	'additionalFields',
	'additionalFields.uuid_config_id',
]);

/** An optional whole number: empty keeps the current value. */
function readOptionalPort(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
): number | undefined {
	const raw = ctx.getNodeParameter(field.name, itemIndex, '') as unknown;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
		return undefined;
	return readInteger(ctx, itemIndex, field, 5060, { min: 1, max: 65535 });
}

function readSecureMedia(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
): boolean | undefined {
	const raw = ctx.getNodeParameter(field.name, itemIndex, 'keep') as unknown;
	if (raw === true || raw === 'on' || raw === 'true') return true;
	if (raw === false || raw === 'off' || raw === 'false') return false;
	if (raw === 'keep' || raw === '' || raw === undefined || raw === null) return undefined;
	throw invalidField(
		ctx,
		itemIndex,
		field,
		`expected keep, on or off (or true/false), got ${JSON.stringify(raw).slice(0, 60)}`,
	);
}

function readDirection(
	ctx: IExecuteFunctions,
	itemIndex: number,
	type: DirectionType,
	byFields: boolean,
): DirectionChange {
	const base = `directions.${type}`;
	/** "Inbound Port", "Outbound SIP Endpoint" ...: the group's and the field's displayName. */
	const ref = (name: string) => fieldIn(updateProperties, `${base}.${name}`);
	const change: DirectionChange = {
		type,
		sip_endpoint: readString(ctx, itemIndex, ref('sipEndpoint'), {
			required: true,
			check: checkSipUri,
		}),
	};
	const port = readOptionalPort(ctx, itemIndex, ref('port'));
	if (port !== undefined) change.port = port;
	// Any name is passed through: the spec shows udp and leaves the other values open.
	const transport = readString(ctx, itemIndex, ref('transport'));
	if (transport) change.transport = transport;
	const secure = readSecureMedia(ctx, itemIndex, ref('secureMedia'));
	if (secure !== undefined) change.secure_media = secure;
	if (byFields) {
		const username = readString(ctx, itemIndex, ref('sipUsername'));
		if (username) change.sip_username = username;
		// Checked as text, sent as typed: a password is not trimmed.
		if (readString(ctx, itemIndex, ref('sipPassword'), { secret: true })) {
			change.sip_password = ctx.getNodeParameter(`${base}.sipPassword`, itemIndex) as string;
		}
	}
	return change;
}

/** The credential is read once per execution (in n8n each read is a database query). */
const loginsByExecution = new WeakMap<
	object,
	Promise<{ sip_username: string; sip_password: string }>
>();

async function readLoginCredential(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<{ sip_username: string; sip_password: string }> {
	const node = ctx.getNode();
	// Also how a workflow saved with the former separate SIP Trunk Login credential arrives here.
	if (authenticationOf(node) !== 'apiKeyAndSipLogin') {
		throw invalidField(
			ctx,
			itemIndex,
			FIELDS.sipLogin,
			'the SIP Trunk Login Credential needs Authentication "API Key and SIP Trunk Login"',
			'The trunk login now comes from the node\'s one credential. Create a "Voice AI with SIP Trunk Login API" credential (base URL, API key, SIP username and password), set Authentication to "API Key and SIP Trunk Login" and choose it; a "Voice AI SIP Trunk Login API" credential is no longer read. Or set SIP Login to "Fields in Each Direction". Nothing was sent to Voice AI.',
		);
	}
	if (!node.credentials?.[SIP_LOGIN_CREDENTIAL]) {
		throw invalidField(
			ctx,
			itemIndex,
			FIELDS.sipLogin,
			'no Voice AI with SIP Trunk Login credential is selected',
			'Choose a Voice AI with SIP Trunk Login API credential on the node, or set SIP Login to "Fields in Each Direction". Nothing was sent to Voice AI.',
		);
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
		throw new NodeOperationError(
			ctx.getNode(),
			'The Voice AI with SIP Trunk Login credential has an empty SIP user name or password',
			{
				itemIndex,
				description:
					'Open the Voice AI with SIP Trunk Login API credential and fill in SIP Username and SIP Password. Nothing was sent to Voice AI.',
			},
		);
	}
	return { sip_username, sip_password };
}

/** Reads and checks everything SIP Update and SIP Compare take from an item; nothing is sent. */
export async function readSipIntent(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<SipIntent> {
	const phone_number = readPhoneNumber.call(this, itemIndex);
	const intent: SipIntent = {
		phone_number,
		changes: [],
		unlisted: 'keep',
		showPasswords: readShowPasswords.call(this, itemIndex),
	};
	const trunkName = readString(this, itemIndex, FIELDS.trunkName);
	if (trunkName) intent.trunkName = trunkName;
	const login = checkOneOf(
		this,
		itemIndex,
		FIELDS.sipLogin,
		readString(this, itemIndex, FIELDS.sipLogin, { fallback: 'fields', required: true }),
		['fields', 'credential'],
	);
	const chosen = readCollection(this, itemIndex, FIELDS.directions);
	const types = DIRECTIONS.filter((type) => chosen[type] !== undefined);
	intent.changes = types.map((type) => readDirection(this, itemIndex, type, login === 'fields'));
	if (login === 'credential' && intent.changes.length > 0) {
		const credential = await readLoginCredential(this, itemIndex);
		for (const change of intent.changes) Object.assign(change, credential);
	}
	const extra = readCollection(this, itemIndex, FIELDS.additionalFields);
	if ('uuid_config_id' in extra) {
		const id = readString(this, itemIndex, FIELDS['additionalFields.uuid_config_id'], {
			added: true,
			check: checkUuid,
		});
		if (id) intent.uuid_config_id = id;
	}
	if (!intent.trunkName && intent.changes.length === 0) {
		throw invalidField(
			this,
			itemIndex,
			FIELDS.directions,
			'nothing to update',
			'Set a Trunk Name or add an Inbound or Outbound direction.',
		);
	}
	intent.unlisted = checkOneOf(
		this,
		itemIndex,
		FIELDS.unlistedDirections,
		readString(this, itemIndex, FIELDS.unlistedDirections, { fallback: 'keep', required: true }),
		['keep', 'detach'],
	);
	return intent;
}
