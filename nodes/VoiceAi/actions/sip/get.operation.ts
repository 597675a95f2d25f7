import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkE164, readString } from '../../helpers/validation';
import { defineOperation, toRecords } from '../types';

export const phoneNumberField: INodeProperties = {
	displayName: 'Phone Number',
	name: 'phoneNumber',
	type: 'string',
	default: '',
	required: true,
	placeholder: '+14155550101',
	description: 'Phone number of the organization, in E.164 form',
};

export function readPhoneNumber(this: Parameters<typeof readString>[0], itemIndex: number): string {
	const field = { name: 'phoneNumber', label: 'Phone Number' };
	return checkE164(this, itemIndex, field, readString(this, itemIndex, field, { required: true }));
}

export const get = defineOperation<{ phoneNumber: string }>({
	description: updateDisplayOptions({ show: { resource: ['sip'], operation: ['get'] } }, [phoneNumberField]),
	repeatable: true,
	target: ({ phoneNumber }) => `The SIP configuration of ${phoneNumber}`,
	validate(itemIndex) {
		return { phoneNumber: readPhoneNumber.call(this, itemIndex) };
	},
	async execute({ phoneNumber }, api) {
		return toRecords(await api('GET', `/sip/${encodeURIComponent(phoneNumber)}`));
	},
});
