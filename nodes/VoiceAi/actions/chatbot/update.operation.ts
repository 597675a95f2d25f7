import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FieldRef } from '../validation';
import {
	checkAnyHexColour,
	checkHexColour,
	checkOneOf,
	checkPathId,
	fieldsIn,
	readBoolean,
	readCollection,
	readString,
} from '../validation';
import { FIELD_BY_NAME, FORM_FIELDS, toProperty } from './formFields';
import { buildMultipartBody } from './multipart';
import type { ImageUpload } from './imageField';
import { readImage } from './imageField';
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
		options: FORM_FIELDS.map(toProperty),
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
		const updates = readCollection(this, itemIndex, UPDATE_FIELDS);
		const fields: Array<[string, string]> = [];
		const images: ImageUpload[] = [];
		for (const name of Object.keys(updates)) {
			const form = FIELD_BY_NAME.get(name);
			if (!form) continue;
			const field: FieldRef = { name: `updateFields.${name}`, label: form.displayName };
			switch (form.kind) {
				case 'text':
					fields.push([
						name,
						readString(this, itemIndex, field, { asTyped: !form.id, added: true }),
					]);
					break;
				case 'colour': {
					const value = readString(this, itemIndex, field, { required: true });
					const check = form.rrggbbOnly ? checkHexColour : checkAnyHexColour;
					fields.push([name, check(this, itemIndex, field, value)]);
					break;
				}
				case 'choice': {
					const value = readString(this, itemIndex, field, { required: true });
					fields.push([name, checkOneOf(this, itemIndex, field, value, form.values)]);
					break;
				}
				case 'boolean':
					fields.push([name, String(readBoolean(this, itemIndex, field, false))]);
					break;
				case 'image':
					images.push(await readImage.call(this, itemIndex, field, form.upload));
					break;
			}
		}
		// No field chosen: the PATCH goes out empty. The spec marks no field required, a PATCH without
		// fields changes nothing, and its answer is the chatbot as it stands.
		return { chatbotId, fields, images };
	},
	async execute({ chatbotId, fields, images }, api, itemIndex) {
		const files = images.map((image) => ({
			...image,
			fileName: image.binary.fileName ?? `${image.field}.${image.binary.fileExtension ?? 'bin'}`,
			mimeType: image.binary.mimeType,
		}));
		const { body, contentType } = await buildMultipartBody(this, itemIndex, fields, files);
		const result = await send(api, UPDATE, {
			values: { id: { field: CHATBOT, value: chatbotId } },
			body,
			extra: { headers: { 'Content-Type': contentType } },
		});
		return toRecords(result) as IDataObject[];
	},
});
