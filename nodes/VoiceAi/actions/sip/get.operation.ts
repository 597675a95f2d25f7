import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkE164, readBoolean, readString } from '../../helpers/validation';
import type { ApiCall } from '../types';
import { defineOperation, toRecords } from '../types';
import { hideSipPasswords } from './configuration';

export const phoneNumberField: INodeProperties = {
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

export function readPhoneNumber(this: Parameters<typeof readString>[0], itemIndex: number): string {
	const field = { name: 'phoneNumber', label: 'Phone Number' };
	return checkE164(this, itemIndex, field, readString(this, itemIndex, field, { required: true }));
}

export function readShowPasswords(this: IExecuteFunctions, itemIndex: number): boolean {
	return readBoolean(
		this,
		itemIndex,
		{ name: 'showSipPasswords', label: 'Show SIP Passwords' },
		false,
	);
}

/** GET /sip/{phone}, as sent by SIP Get, Update and Compare. */
export async function fetchSip(api: ApiCall, phoneNumber: string): Promise<unknown> {
	return await api('GET', `/sip/${encodeURIComponent(phoneNumber)}`);
}

export const get = defineOperation<{ phoneNumber: string; showPasswords: boolean }>({
	description: updateDisplayOptions({ show: { resource: ['sip'], operation: ['get'] } }, [
		phoneNumberField,
		showPasswordsField,
	]),
	repeatable: true,
	target: ({ phoneNumber }) => `The SIP configuration of ${phoneNumber}`,
	validate(itemIndex) {
		return {
			phoneNumber: readPhoneNumber.call(this, itemIndex),
			showPasswords: readShowPasswords.call(this, itemIndex),
		};
	},
	async execute({ phoneNumber, showPasswords }, api) {
		return hideSipPasswords(toRecords(await fetchSip(api, phoneNumber)), showPasswords);
	},
});
