import { defineOperation, toRecords } from '../types';
import { GET_SIP, fetchSip, hideSipPasswords } from './configuration';
import { readPhoneNumber, readShowPasswords, showPasswordsField, sipForm } from './fields';

export const get = defineOperation<{ phone_number: string; showPasswords: boolean }>({
	name: 'Get',
	summary: 'Get the inbound and outbound SIP configuration of a number',
	action: 'Get a SIP configuration',
	changesData: false,
	requests: [GET_SIP],
	...sipForm([showPasswordsField]),
	validate(itemIndex) {
		return {
			phone_number: readPhoneNumber(this, itemIndex),
			showPasswords: readShowPasswords(this, itemIndex),
		};
	},
	async execute({ phone_number, showPasswords }, api) {
		return hideSipPasswords(toRecords(await fetchSip(api, phone_number)), showPasswords);
	},
});
