import type { INodeProperties } from 'n8n-workflow';

import { checkE164, fieldsIn, readString } from '../validation';
import { defineOperation, request, send, toRecords } from '../types';

const properties: INodeProperties[] = [
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description:
			'The number the agent calls from, in E.164 form. The list shows the numbers of the existing agents.',
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
	},
	{
		displayName: 'Agent Name',
		name: 'agentName',
		type: 'string',
		default: '',
		required: true,
		description:
			'Unique within the organization (case-insensitive); a duplicate gives a 409 conflict',
	},
	{
		displayName: 'Task',
		name: 'task',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description: 'What the agent does on its calls',
	},
	{
		displayName: 'Voice',
		name: 'selectedVoice',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'maya',
		description:
			'Name of the voice the agent speaks with, as your Voice AI account lists it (the API shows no list of voices)',
	},
	{
		displayName:
			"This node never repeats Agent Create after a timeout or a 5xx, so no agent is created twice. n8n's Retry On Fail (node Settings) sends a failed one again: leave it off here.",
		name: 'createRetryNotice',
		type: 'notice',
		default: '',
	},
];

const CREATE = request('POST', '/callback/standardCampaign');
const FIELDS = fieldsIn(properties, ['phoneNumber', 'agentName', 'task', 'selectedVoice']);

export const create = defineOperation({
	name: 'Create',
	summary: 'Create a calling agent',
	action: 'Create an agent',
	changesData: 'changes data: adds an agent to the organization',
	requests: [CREATE],
	description: properties,
	repeatable: false,
	mayHaveApplied:
		'The agent may have been created before the connection failed: look for it with Agent Get Many.',
	validate(itemIndex) {
		const read = (name: keyof typeof FIELDS, options: Parameters<typeof readString>[3] = {}) =>
			readString(this, itemIndex, FIELDS[name], { required: true, ...options });
		return {
			phoneNumber: read('phoneNumber', { locator: true, check: checkE164 }),
			agentName: read('agentName'),
			task: read('task', { asTyped: true }),
			selectedVoice: read('selectedVoice'),
		};
	},
	async execute(input, api) {
		return toRecords(await send(api, CREATE, { body: { ...input } }));
	},
});
