import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkPathId, fieldsIn, readCollection, readString } from '../validation';
import { FORM_FIELDS, readFormField } from './formFields';
import { type ImageUpload, multipartBody } from './upload';
import { defineOperation, idLocator, request, send, toRecords } from '../types';

const UPDATE = request('PATCH', '/chatbot/{id}');

const properties: INodeProperties[] = [
	idLocator(
		'Chatbot',
		'chatbotId',
		'cb_123',
		'The chatbot widget to update (the API shows no list of chatbots, so enter its ID)',
	),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: FORM_FIELDS,
	},
];

const { chatbotId: CHATBOT, updateFields: UPDATE_FIELDS } = fieldsIn(properties, [
	'chatbotId',
	'updateFields',
]);

interface UpdateChatbotInput {
	chatbotId: string;
	fields: Array<[string, string]>;
	images: ImageUpload[];
}

export const update = defineOperation<UpdateChatbotInput>({
	name: 'Update',
	hint: 'Change the settings and images of a chatbot widget',
	action: 'Update a chatbot',
	changesData: 'changes data',
	requests: [UPDATE],
	description: updateDisplayOptions(
		{ show: { resource: ['chatbot'], operation: ['update'] } },
		properties,
	),
	repeatable: true,
	target: ({ chatbotId }) => `Chatbot "${chatbotId}"`,
	async validate(itemIndex) {
		const chatbotId = readString(this, itemIndex, CHATBOT, {
			required: true,
			locator: true,
			check: checkPathId,
		});
		const fields: Array<[string, string]> = [];
		const images: ImageUpload[] = [];
		// No field chosen: the PATCH goes out empty. The spec marks no field required, a PATCH without
		// fields changes nothing, and its answer is the chatbot as it stands.
		for (const name of Object.keys(readCollection(this, itemIndex, UPDATE_FIELDS))) {
			const property = FORM_FIELDS.find((candidate) => candidate.name === name);
			if (!property) continue;
			const value = await readFormField(this, itemIndex, property);
			if (typeof value === 'string') fields.push([name, value]);
			else images.push(value);
		}
		return { chatbotId, fields, images };
	},
	async execute({ chatbotId, fields, images }, api, itemIndex) {
		const { body, contentType } = await multipartBody(this, itemIndex, fields, images);
		const values = { id: { field: CHATBOT, value: chatbotId } };
		const extra = { headers: { 'Content-Type': contentType } };
		return toRecords(await send(api, UPDATE, { values, body, extra }));
	},
});
