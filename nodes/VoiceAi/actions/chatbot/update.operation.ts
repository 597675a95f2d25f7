import type { IBinaryData, IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FieldRef } from '../../helpers/validation';
import {
	checkHexColour,
	checkOneOf,
	invalidField,
	readBoolean,
	readCollection,
	readString,
} from '../../helpers/validation';
import { idLocator } from '../../helpers/locators';
import { buildMultipartBody } from '../../helpers/multipart';
import { apiPath } from '../../transport/path';
import { defineOperation, toRecords } from '../types';

const TEMPLATES = ['classic', 'modern', 'glassmorphism'] as const;
const BUBBLE_ICONS = [
	'message-circle',
	'sparkles',
	'bot',
	'headphones',
	'help-circle',
	'heart',
] as const;
const BUBBLE_POSITIONS = ['bottom-right', 'bottom-left', 'bottom-center'] as const;
const BUBBLE_SIZES = ['small', 'medium', 'large'] as const;

// The update form of the spec lists these fields and the two files, nothing else: webhook_url and
// persistent_buttons belong to the Chatbot object but not to the form, so this operation never sends them.
// Only the rules the spec states are checked here (header_color is #RRGGBB, the enumerations); every other
// value, an empty one included, goes to the service as given (docs/service-assumptions.md).
const TEXT_FIELDS = [
	'chatbotName',
	'chatbot_title',
	'pathway_id',
	'welcome_message',
	'input_placeholder',
	'greeting_text',
	'background_color',
	'text_color',
	'user_message_color',
	'input_bg_color',
];
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
	values.map((value) => ({
		name: value.replace(
			/(^|-)(\w)/g,
			(_m, dash: string, c: string) => (dash ? ' ' : '') + c.toUpperCase(),
		),
		value,
	}));

const colour = (displayName: string, name: string, description: string): INodeProperties => ({
	displayName,
	name,
	type: 'color',
	default: '#000000',
	description:
		name === 'header_color'
			? `${description}, as #RRGGBB`
			: `${description}: a hex colour, sent as written`,
});

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
					'Name of the input binary property holding a custom bubble icon image; uploaded as bubbleIconImage with its file name and MIME type',
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
					'Name of the input binary property holding the chatbot image; uploaded as chatbot_image with its file name and MIME type',
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
				description:
					'Pathway identifier; left empty, an empty value is sent (how the service reads it is not documented)',
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
	description: updateDisplayOptions(
		{ show: { resource: ['chatbot'], operation: ['update'] } },
		properties,
	),
	repeatable: true,
	target: ({ chatbotId }) => `Chatbot "${chatbotId}"`,
	validate(itemIndex) {
		const chatbotId = readString(
			this,
			itemIndex,
			{ name: 'chatbotId', label: 'Chatbot' },
			{ required: true, locator: true },
		);
		const updates = readCollection(this, itemIndex, {
			name: 'updateFields',
			label: 'Update Fields',
		});
		const fields: Array<[string, string]> = [];
		const images: ImageUpload[] = [];
		const ref = (name: string): FieldRef => ({
			name: `updateFields.${name}`,
			label: LABELS[name] ?? name,
		});

		for (const name of Object.keys(updates)) {
			const field = ref(name);
			if (TEXT_FIELDS.includes(name)) {
				fields.push([name, readString(this, itemIndex, field)]);
			} else if (name === 'header_color') {
				fields.push([
					name,
					checkHexColour(
						this,
						itemIndex,
						field,
						readString(this, itemIndex, field, { required: true }),
					),
				]);
			} else if (name in ENUM_FIELDS) {
				fields.push([
					name,
					checkOneOf(
						this,
						itemIndex,
						field,
						readString(this, itemIndex, field, { required: true }),
						ENUM_FIELDS[name],
					),
				]);
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
				throw invalidField(
					this,
					itemIndex,
					field,
					`the input item has no binary property "${property}"`,
					'Name a binary property of the input item, for example data from a Read File or HTTP Request node.',
				);
			}
			// The spec names no image types: the file goes with the type its source gave it.
			const mimeType = (binary.mimeType ?? '').trim() || 'application/octet-stream';
			images.push({ field: upload, property, binary: { ...binary, mimeType } });
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
		const result = await api(
			'PATCH',
			apiPath`/chatbot/${{ field: { name: 'chatbotId', label: 'Chatbot' }, value: chatbotId }}`,
			body,
			{ headers: { 'Content-Type': contentType } },
		);
		return toRecords(result) as IDataObject[];
	},
});
