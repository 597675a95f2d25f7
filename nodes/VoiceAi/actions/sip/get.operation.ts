import { updateDisplayOptions } from 'n8n-workflow';

import { defineOperation, toRecords } from '../types';
import { GET_SIP, fetchSip, hideSipPasswords } from './configuration';
import { phoneNumberField, readPhoneNumber, readShowPasswords, showPasswordsField } from './fields';

export const get = defineOperation<{ phoneNumber: string; showPasswords: boolean }>({
	name: 'Get',
	hint: 'Get the inbound and outbound SIP configuration of a number',
	action: 'Get a SIP configuration',
	changesData: false,
	requests: [GET_SIP],
	description: updateDisplayOptions({ show: { resource: ['sip'], operation: ['get'] } }, [
		phoneNumberField,
		showPasswordsField,
	]),
	repeatable: true,
	target: ({ phoneNumber }) => `The SIP configuration of ${phoneNumber}`,
	validate(itemIndex) {
		return {
			phoneNumber: readPhoneNumber(this, itemIndex),
			showPasswords: readShowPasswords(this, itemIndex),
		};
	},
	async execute({ phoneNumber, showPasswords }, api) {
		return hideSipPasswords(toRecords(await fetchSip(api, phoneNumber)), showPasswords);
	},
});
