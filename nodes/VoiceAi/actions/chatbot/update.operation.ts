import type { IBinaryData, IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FieldRef } from '../../helpers/validation';
import {
	IMAGE_MIME_TYPES,
	checkHexColour,
	checkOneOf,
	invalidField,
	readBoolean,
	readCollection,
	readString,
} from '../../helpers/validation';
import { buildMultipartBody } from '../../helpers/multipart';
import { apiPath } from '../../transport/path';
import { defineOperation, toRecords } from '../types';

const TEMPLATES = ['classic', 'modern', 'glassmorphism'] as const;
const BUBBLE_ICONS = ['message-circle', 'sparkles', 'bot', 'headphones', 'help-circle', 'heart'] as const;
const BUBBLE_POSITIONS = ['bottom-right', 'bottom-left', 'bottom-center'] as const;
const BUBBLE_SIZES = ['small', 'medium', 'large'] as const;

// The update form of the spec lists these fields and the two files, nothing else: webhook_url and
// persistent_buttons belong to the Chatbot object but not to the form, so this operation never sends them.
const TEXT_FIELDS = ['chatbotName', 'chatbot_title', 'pathway_id', 'welcome_message', 'input_placeholder', 'greeting_text'];
/** Text fields the Chatbot object cannot hold empty; the messages and placeholders may be cleared. */
const NON_EMPTY_FIELDS = ['chatbotName', 'chatbot_title', 'pathway_id'];
const COLOUR_FIELDS = ['header_color', 'background_color', 'text_color', 'user_message_color', 'input_bg_color'];
const ENUM_FIELDS: Record<string, readonly string[]> = {
	template: TEMPLATES,
	bubble_icon: BUBBLE_ICONS,
	bubble_position: BUBBLE_POSITIONS,
	bubble_size: BUBBLE_SIZES,
};
const BOOLEAN_FIELDS = ['auto_open', 'show_branding'];
/** Upload form field ← the Update Fields entry naming the input item's binary property. */
const IMAGE_FIELDS: Record<string, string> = {
	chatbot_image: 'chatbotImageProperty',
	bubbleIconImage: 'bubbleIconImageProperty',
};

const choice = (values: readonly string[]) =>
	values.map((value) => ({ name: value.replace(/(^|-)(\w)/g, (_m, dash: string, c: string) => (dash ? ' ' : '') + c.toUpperCase()), value }));

const colour = (displayName: string, name: string, description: string): INodeProperties => ({
	displayName,
	name,
	type: 'color',
	default: '#000000',
	description: `${description}, as #RRGGBB`,
});

const properties: INodeProperties[] = [
	{
		displayName: 'Chatbot ID',
		name: 'chatbotId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'cb_123',
		description: 'ID of the chatbot widget to update',
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Auto Open',
				name: 'auto_open',
				type: 'boolean',
				default: false,
				description: 'Whether the chat window opens automatically',
			},
			colour('Background Color', 'background_color', 'Background colour of the widget'),
			{
				displayName: 'Bubble Icon',
				name: 'bubble_icon',
				type: 'options',
				options: choice(BUBBLE_ICONS),
				default: 'message-circle',
				description: 'Icon of the chat bubble',
			},
			{
				displayName: 'Bubble Icon Image (Binary Property)',
				name: 'bubbleIconImageProperty',
				type: 'string',
				default: 'data',
				description:
					'Name of the input binary property holding a custom bubble icon (PNG, JPEG, GIF, WebP or SVG, up to 5 MiB); uploaded as bubbleIconImage with its file name and MIME type',
			},
			{
				displayName: 'Bubble Position',
				name: 'bubble_position',
				type: 'options',
				options: choice(BUBBLE_POSITIONS),
				default: 'bottom-right',
			},
			{
				displayName: 'Bubble Size',
				name: 'bubble_size',
				type: 'options',
				options: choice(BUBBLE_SIZES),
				default: 'medium',
			},
			{
				displayName: 'Chatbot Image (Binary Property)',
				name: 'chatbotImageProperty',
				type: 'string',
				default: 'data',
				description:
					'Name of the input binary property holding the chatbot image (PNG, JPEG, GIF, WebP or SVG, up to 5 MiB); uploaded as chatbot_image with its file name and MIME type',
			},
			{
				displayName: 'Chatbot Name',
				name: 'chatbotName',
				type: 'string',
				default: '',
			},
			{
				displayName: 'Chatbot Title',
				name: 'chatbot_title',
				type: 'string',
				default: '',
				description: 'Title shown in the widget header',
			},
			{
				displayName: 'Greeting Text',
				name: 'greeting_text',
				type: 'string',
				default: '',
				description: 'Greeting tooltip shown near the chat bubble',
			},
			colour('Header Color', 'header_color', 'Header colour of the widget'),
			colour('Input Background Color', 'input_bg_color', 'Background colour of the message input'),
			{
				displayName: 'Input Placeholder',
				name: 'input_placeholder',
				type: 'string',
				default: '',
				description: 'Placeholder text of the message input',
			},
			{
				displayName: 'Pathway ID',
				name: 'pathway_id',
				type: 'string',
				default: '',
			},
			{
				displayName: 'Show Branding',
				name: 'show_branding',
				type: 'boolean',
				default: true,
				description: "Whether the chat footer shows the service's powered-by branding",
			},
			{
				displayName: 'Template',
				name: 'template',
				type: 'options',
				options: choice(TEMPLATES),
				default: 'classic',
			},
			colour('Text Color', 'text_color', 'Text colour of the widget'),
			colour('User Message Color', 'user_message_color', 'Colour of the user message bubbles'),
			{
				displayName: 'Welcome Message',
				name: 'welcome_message',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				description: 'Message shown when a chat starts',
			},
		],
	},
];

const LABELS: Record<string, string> = Object.fromEntries(
	(properties[1].options as INodeProperties[]).map((option) => [option.name, option.displayName]),
);

interface ImageUpload {
	field: string;
	property: string;
	binary: IBinaryData;
}

interface UpdateChatbotInput {
	chatbotId: string;
	fields: Array<[string, string]>;
	images: ImageUpload[];
}

export const update = defineOperation<UpdateChatbotInput>({
	description: updateDisplayOptions({ show: { resource: ['chatbot'], operation: ['update'] } }, properties),
	repeatable: true,
	target: ({ chatbotId }) => `Chatbot "${chatbotId}"`,
	validate(itemIndex) {
		const chatbotId = readString(this, itemIndex, { name: 'chatbotId', label: 'Chatbot ID' }, { required: true });
		const updates = readCollection(this, itemIndex, { name: 'updateFields', label: 'Update Fields' });
		const fields: Array<[string, string]> = [];
		const images: ImageUpload[] = [];
		const ref = (name: string): FieldRef => ({ name: `updateFields.${name}`, label: LABELS[name] ?? name });

		for (const name of Object.keys(updates)) {
			const field = ref(name);
			if (TEXT_FIELDS.includes(name)) {
				fields.push([name, readString(this, itemIndex, field, { required: NON_EMPTY_FIELDS.includes(name) })]);
			} else if (COLOUR_FIELDS.includes(name)) {
				fields.push([name, checkHexColour(this, itemIndex, field, readString(this, itemIndex, field, { required: true }))]);
			} else if (name in ENUM_FIELDS) {
				fields.push([name, checkOneOf(this, itemIndex, field, readString(this, itemIndex, field, { required: true }), ENUM_FIELDS[name])]);
			} else if (BOOLEAN_FIELDS.includes(name)) {
				fields.push([name, String(readBoolean(this, itemIndex, field, false))]);
			}
		}
		for (const [upload, option] of Object.entries(IMAGE_FIELDS)) {
			if (!(option in updates)) continue;
			const field = ref(option);
			const property = readString(this, itemIndex, field, { required: true });
			const binary = this.getInputData()[itemIndex]?.binary?.[property];
			if (!binary) {
				throw invalidField(this, itemIndex, field, `the input item has no binary property "${property}"`, 'Name a binary property of the input item, for example data from a Read File or HTTP Request node.');
			}
			const mimeType = (binary.mimeType ?? '').toLowerCase().split(';')[0].trim();
			if (!IMAGE_MIME_TYPES.includes(mimeType)) {
				throw invalidField(this, itemIndex, field, `"${property}" is ${mimeType || 'of unknown type'}, not an image`, `Upload one of ${IMAGE_MIME_TYPES.join(', ')}.`);
			}
			images.push({ field: upload, property, binary: { ...binary, mimeType } });
		}
		if (fields.length === 0 && images.length === 0) {
			throw invalidField(this, itemIndex, { name: 'updateFields', label: 'Update Fields' }, 'no field to update was chosen', 'Add at least one field under Update Fields.');
		}
		return { chatbotId, fields, images };
	},
	async execute({ chatbotId, fields, images }, api, itemIndex) {
		const files = images.map((image) => ({
			...image,
			fileName: image.binary.fileName ?? `${image.field}.${image.binary.fileExtension ?? 'bin'}`,
			mimeType: image.binary.mimeType,
		}));
		const { body, contentType } = await buildMultipartBody(this, itemIndex, fields, files);
		const result = await api('PATCH', apiPath`/chatbot/${{ field: { name: 'chatbotId', label: 'Chatbot ID' }, value: chatbotId }}`, body, { headers: { 'Content-Type': contentType } });
		return toRecords(result) as IDataObject[];
	},
});
