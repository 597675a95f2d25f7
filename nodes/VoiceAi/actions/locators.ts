import type { INodeProperties } from 'n8n-workflow';

/**
 * A phone number picked from the numbers the agents list shows ("From List", method searchPhoneNumbers of
 * the node) or typed ("By Number"). Read it with `readString(..., { locator: true })`.
 */
export function phoneNumberLocator(description: string): INodeProperties {
	return {
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a number used by an agent...',
				typeOptions: { searchListMethod: 'searchPhoneNumbers', searchable: true },
			},
			{
				displayName: 'By Number',
				name: 'id',
				type: 'string',
				placeholder: '+14155550101',
				hint: 'E.164: a plus sign, the country code and the number, digits only',
			},
		],
	};
}

/** An id the spec offers no list endpoint for: typed "By ID" only. */
export function idLocator(
	displayName: string,
	name: string,
	placeholder: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'id', value: '' },
		required: true,
		description,
		modes: [{ displayName: 'By ID', name: 'id', type: 'string', placeholder }],
	};
}
