import type { IExecuteFunctions } from 'n8n-workflow';

import { AUTHENTICATION, authenticationOf } from '../../transport/request';
import type { FieldRef } from '../validation';
import {
	checkOneOf,
	checkSipUri,
	checkUuid,
	invalidField,
	readCollection,
	readInteger,
	readString,
} from '../validation';
import type { DirectionChange, Login } from './configuration';
import { DIRECTIONS, readPhoneNumber, readShowPasswords, sipField } from './fields';

function readSecureMedia(ctx: IExecuteFunctions, itemIndex: number, field: FieldRef) {
	const raw = ctx.getNodeParameter(field.name, itemIndex, 'keep') as unknown;
	if (raw === true || raw === 'on' || raw === 'true') return true;
	if (raw === false || raw === 'off' || raw === 'false') return false;
	if (raw === 'keep' || raw === '' || raw === undefined || raw === null) return undefined;
	const got = JSON.stringify(raw).slice(0, 60);
	throw invalidField(ctx, itemIndex, field, `expected keep, on or off (or true/false), got ${got}`);
}

/** The credential is read once per execution (in n8n each read is a database query). */
const loginsByExecution = new WeakMap<object, Promise<Login>>();

async function readLoginCredential(ctx: IExecuteFunctions, itemIndex: number) {
	const node = ctx.getNode();
	const field = sipField('sipLogin');
	const refuse = (problem: string, hint: string) =>
		invalidField(ctx, itemIndex, field, problem, `${hint} Nothing was sent to Voice AI.`);
	// Also how a workflow saved with the former separate SIP Trunk Login credential arrives here.
	const chosen = node.credentials?.[AUTHENTICATION.apiKeyAndSipLogin];
	if (authenticationOf(node) !== 'apiKeyAndSipLogin' || !chosen)
		throw refuse(
			'the SIP Trunk Login Credential needs Authentication "API Key and SIP Trunk Login" and a credential of that kind chosen',
			'The trunk login now comes from the node\'s one credential. Create a "Voice AI with SIP Trunk Login API" credential (base URL, API key, SIP username and password), set Authentication to "API Key and SIP Trunk Login" and choose it; a "Voice AI SIP Trunk Login API" credential is no longer read. Or set SIP Login to "Fields in Each Direction".',
		);
	const login =
		loginsByExecution.get(ctx) ??
		ctx.getCredentials(AUTHENTICATION.apiKeyAndSipLogin, itemIndex).then((data) => ({
			sip_username: String(data.sipUsername ?? '').trim(),
			sip_password: String(data.sipPassword ?? ''),
		}));
	loginsByExecution.set(ctx, login);
	const { sip_username, sip_password } = await login;
	if (!sip_username || !sip_password)
		throw refuse(
			'the chosen credential has an empty SIP user name or password',
			'Open the Voice AI with SIP Trunk Login API credential and fill in SIP Username and SIP Password.',
		);
	return { sip_username, sip_password };
}

export async function readSipIntent(this: IExecuteFunctions, itemIndex: number) {
	const text = (field: FieldRef, options?: Parameters<typeof readString>[3]) =>
		readString(this, itemIndex, field, options);
	const oneOf = <T extends string>(field: FieldRef, allowed: readonly T[]) => {
		const value = text(field, { fallback: allowed[0], required: true });
		return checkOneOf(this, itemIndex, field, value, allowed);
	};
	const readDirection = (type: DirectionChange['type']) => {
		const ref = (name: string) => sipField(`directions.${type}.${name}`);
		// Only nothing or blank text keeps the current port; anything else (a list too) must be one.
		const port = this.getNodeParameter(ref('port').name, itemIndex, '') as unknown;
		const keepPort =
			port === undefined || port === null || (typeof port === 'string' && !port.trim());
		const fields = login === 'fields';
		// Checked as text, sent as typed: a password is not trimmed.
		const password = fields ? text(ref('sipPassword'), { secret: true, asTyped: true }) : '';
		return {
			type,
			sip_endpoint: text(ref('sipEndpoint'), { required: true, check: checkSipUri }),
			port: keepPort
				? undefined
				: readInteger(this, itemIndex, ref('port'), 5060, { min: 1, max: 65535 }),
			transport: text(ref('transport')) || undefined,
			secure_media: readSecureMedia(this, itemIndex, ref('secureMedia')),
			sip_username: (fields && text(ref('sipUsername'))) || undefined,
			sip_password: password.trim() ? password : undefined,
		};
	};
	const phone_number = readPhoneNumber(this, itemIndex);
	const showPasswords = readShowPasswords(this, itemIndex);
	const trunkName = text(sipField('trunkName')) || undefined;
	const login = oneOf(sipField('sipLogin'), ['fields', 'credential']);
	const chosen = readCollection(this, itemIndex, sipField('directions'));
	const changes = DIRECTIONS.filter((type) => chosen[type] !== undefined).map(readDirection);
	if (login === 'credential' && changes.length > 0) {
		const credential = await readLoginCredential(this, itemIndex);
		for (const change of changes) Object.assign(change, credential);
	}
	const added = readCollection(this, itemIndex, sipField('additionalFields'));
	const configId = sipField('additionalFields.uuid_config_id');
	const uuid_config_id =
		('uuid_config_id' in added && text(configId, { added: true, check: checkUuid })) || undefined;
	if (!trunkName && changes.length === 0) {
		const hint = 'Set a Trunk Name or add an Inbound or Outbound direction.';
		throw invalidField(this, itemIndex, sipField('directions'), 'nothing to update', hint);
	}
	const unlisted = oneOf(sipField('unlistedDirections'), ['keep', 'detach']);
	return { phone_number, trunkName, uuid_config_id, changes, unlisted, showPasswords };
}
