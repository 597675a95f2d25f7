import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { AUTHENTICATION, authenticationOf } from '../../transport';
import type { FieldRef } from '../validation';
import {
	checkOneOf,
	checkSipUri,
	checkUuid,
	fieldIn,
	invalidField,
	readCollection,
	readInteger,
	readString,
} from '../validation';
import type { DirectionChange, DirectionType, SipIntent } from './configuration';
import { DIRECTIONS } from './configuration';
import { FIELDS, readPhoneNumber, readShowPasswords, updateProperties } from './fields';

function readSecureMedia(ctx: IExecuteFunctions, itemIndex: number, field: FieldRef) {
	const raw = ctx.getNodeParameter(field.name, itemIndex, 'keep') as unknown;
	if (raw === true || raw === 'on' || raw === 'true') return true;
	if (raw === false || raw === 'off' || raw === 'false') return false;
	if (raw === 'keep' || raw === '' || raw === undefined || raw === null) return undefined;
	const got = JSON.stringify(raw).slice(0, 60);
	throw invalidField(ctx, itemIndex, field, `expected keep, on or off (or true/false), got ${got}`);
}

/** A direction's fields; one left empty is undefined: it keeps what the direction has now. */
function readDirection(
	ctx: IExecuteFunctions,
	itemIndex: number,
	type: DirectionType,
	byFields: boolean,
): DirectionChange {
	const ref = (name: string) => fieldIn(updateProperties, `directions.${type}.${name}`);
	const port = ctx.getNodeParameter(`directions.${type}.port`, itemIndex, '') as unknown;
	const change: DirectionChange = {
		type,
		sip_endpoint: readString(ctx, itemIndex, ref('sipEndpoint'), {
			required: true,
			check: checkSipUri,
		}),
		port:
			port === undefined || port === null || (typeof port === 'string' && !port.trim())
				? undefined
				: readInteger(ctx, itemIndex, ref('port'), 5060, { min: 1, max: 65535 }),
		// Any name is passed through: the spec shows udp and leaves the other values open.
		transport: readString(ctx, itemIndex, ref('transport')) || undefined,
		secure_media: readSecureMedia(ctx, itemIndex, ref('secureMedia')),
	};
	if (byFields) {
		change.sip_username = readString(ctx, itemIndex, ref('sipUsername')) || undefined;
		// Checked as text, sent as typed: a password is not trimmed.
		const password = readString(ctx, itemIndex, ref('sipPassword'), {
			secret: true,
			asTyped: true,
		});
		if (password.trim()) change.sip_password = password;
	}
	return change;
}

type Login = { sip_username: string; sip_password: string };

/** The credential is read once per execution (in n8n each read is a database query). */
const loginsByExecution = new WeakMap<object, Promise<Login>>();

async function readLoginCredential(ctx: IExecuteFunctions, itemIndex: number): Promise<Login> {
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
	if (!node.credentials?.[AUTHENTICATION.apiKeyAndSipLogin]) {
		throw invalidField(
			ctx,
			itemIndex,
			FIELDS.sipLogin,
			'no Voice AI with SIP Trunk Login credential is selected',
			'Choose a Voice AI with SIP Trunk Login API credential on the node, or set SIP Login to "Fields in Each Direction". Nothing was sent to Voice AI.',
		);
	}
	const login =
		loginsByExecution.get(ctx) ??
		ctx.getCredentials(AUTHENTICATION.apiKeyAndSipLogin, itemIndex).then((data) => ({
			sip_username: String(data.sipUsername ?? '').trim(),
			sip_password: String(data.sipPassword ?? ''),
		}));
	loginsByExecution.set(ctx, login);
	const { sip_username, sip_password } = await login;
	if (!sip_username || !sip_password) {
		throw new NodeOperationError(
			node,
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

/** What SIP Update and Compare take from an item, read and checked; nothing is sent. */
export async function readSipIntent(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<SipIntent> {
	const phone_number = readPhoneNumber(this, itemIndex);
	const showPasswords = readShowPasswords(this, itemIndex);
	const trunkName = readString(this, itemIndex, FIELDS.trunkName) || undefined;
	const loginRaw = readString(this, itemIndex, FIELDS.sipLogin, {
		fallback: 'fields',
		required: true,
	});
	const login = checkOneOf(this, itemIndex, FIELDS.sipLogin, loginRaw, ['fields', 'credential']);
	const chosen = readCollection(this, itemIndex, FIELDS.directions);
	const changes = DIRECTIONS.filter((type) => chosen[type] !== undefined).map((type) =>
		readDirection(this, itemIndex, type, login === 'fields'),
	);
	if (login === 'credential' && changes.length > 0) {
		const credential = await readLoginCredential(this, itemIndex);
		for (const change of changes) Object.assign(change, credential);
	}
	const uuid_config_id =
		'uuid_config_id' in readCollection(this, itemIndex, FIELDS.additionalFields)
			? readString(this, itemIndex, FIELDS['additionalFields.uuid_config_id'], {
					added: true,
					check: checkUuid,
				}) || undefined
			: undefined;
	if (!trunkName && changes.length === 0) {
		throw invalidField(
			this,
			itemIndex,
			FIELDS.directions,
			'nothing to update',
			'Set a Trunk Name or add an Inbound or Outbound direction.',
		);
	}
	const unlisted = readString(this, itemIndex, FIELDS.unlistedDirections, {
		fallback: 'keep',
		required: true,
	});
	return {
		phone_number,
		trunkName,
		uuid_config_id,
		changes,
		unlisted: checkOneOf(this, itemIndex, FIELDS.unlistedDirections, unlisted, ['keep', 'detach']),
		showPasswords,
	};
}

/** What Update and Compare share: the form and how an item is read. */
export const sipForm = (operation: string) => ({
	description: updateDisplayOptions(
		{ show: { resource: ['sip'], operation: [operation] } },
		updateProperties,
	),
	// The service compares the wanted state with the current one: sending it twice changes nothing more.
	repeatable: true as const,
	target: ({ phone_number }: SipIntent) => `The SIP configuration of ${phone_number}`,
	validate: readSipIntent,
});
