import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { defineOperation, idLocator, request, send, toRecords } from '../types';
import {
	checkAnyHexColour,
	checkHexColour,
	checkOneOf,
	checkPathId,
	type FieldRef,
	fieldsIn,
	readBoolean,
	readCollection,
	readString,
	type TextCheck,
} from '../validation';
import { type ImageUpload, multipartBody, readImage } from './upload';

const UPDATE = request('PATCH', '/chatbot/{id}');

// The spec's update form: these fields and two files (webhook_url and persistent_buttons are not in it,
// so never sent). Only the spec's rules are checked; any other value, empty too, goes as given
// (docs/service-assumptions.md). A field is read as its property's type says, plus these three facts:

/** The spec pins this colour to #RRGGBB; the others take any hex form. */
const RRGGBB = 'header_color';
/** An identifier, trimmed; other text is free text, sent as typed. */
const IDENTIFIER = 'pathway_id';
/** The image fields: each names a binary property of the input item, uploaded as this form part. */
const UPLOADS: Record<string, string> = {
	bubbleIconImageProperty: 'bubbleIconImage',
	chatbotImageProperty: 'chatbot_image',
};

const field = (
	displayName: string,
	name: string,
	description: string | undefined,
	rest: Pick<INodeProperties, 'type' | 'default' | 'options' | 'typeOptions'>,
): INodeProperties => ({ displayName, name, ...(description ? { description } : {}), ...rest });
const text = (displayName: string, name: string, description?: string) =>
	field(displayName, name, description, { type: 'string', default: '' });
const ANY_HEX = ': a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA), sent as written';
const colour = (displayName: string, name: string, description: string) =>
	field(displayName, name, description + (name === RRGGBB ? ', as #RRGGBB' : ANY_HEX), {
		type: 'color',
		default: '#000000',
	});
/** Options named from their values: "bottom-right" shows as "Bottom Right". */
const choice = (
	displayName: string,
	name: string,
	values: string[],
	value = values[0],
	description?: string,
) =>
	field(displayName, name, description, {
		type: 'options',
		options: values.map((option) => ({
			name: option.replace(/\b\w/g, (c) => c.toUpperCase()).replace(/-/g, ' '),
			value: option,
		})),
		default: value,
	});
const flag = (displayName: string, name: string, value: boolean, description: string) =>
	field(displayName, name, description, { type: 'boolean', default: value });
const image = (displayName: string, name: string, what: string) =>
	field(
		displayName,
		name,
		`Name of the input binary field holding ${what}; uploaded as ${UPLOADS[name]} with its file name and MIME type`,
		{ type: 'string', default: 'data' },
	);

/** In the editor's order (alphabetical by display name). */
export const FORM_FIELDS: INodeProperties[] = [
	flag('Auto Open', 'auto_open', false, 'Whether the chat window opens automatically'),
	colour('Background Color', 'background_color', 'Background colour of the widget'),
	choice(
		'Bubble Icon',
		'bubble_icon',
		['message-circle', 'sparkles', 'bot', 'headphones', 'help-circle', 'heart'],
		'message-circle',
		'Icon of the chat bubble',
	),
	image('Bubble Icon Image Field', 'bubbleIconImageProperty', 'a custom bubble icon image'),
	choice('Bubble Position', 'bubble_position', ['bottom-right', 'bottom-left', 'bottom-center']),
	choice('Bubble Size', 'bubble_size', ['small', 'medium', 'large'], 'medium'),
	image('Chatbot Image Field', 'chatbotImageProperty', 'the chatbot image'),
	text('Chatbot Name', 'chatbotName'),
	text('Chatbot Title', 'chatbot_title', 'Title shown in the widget header'),
	text('Greeting Text', 'greeting_text', 'Greeting tooltip shown near the chat bubble'),
	colour('Header Color', 'header_color', 'Header colour of the widget'),
	colour('Input Background Color', 'input_bg_color', 'Background colour of the message input'),
	text('Input Placeholder', 'input_placeholder', 'Placeholder text of the message input'),
	text(
		'Pathway ID',
		'pathway_id',
		'Pathway identifier; left empty, an empty value is sent (how the service reads it is not documented)',
	),
	flag(
		'Show Branding',
		'show_branding',
		true,
		"Whether the chat footer shows the service's powered-by branding",
	),
	choice('Template', 'template', ['classic', 'modern', 'glassmorphism']),
	colour('Text Color', 'text_color', 'Text colour of the widget'),
	colour('User Message Color', 'user_message_color', 'Colour of the user message bubbles'),
	{
		...text('Welcome Message', 'welcome_message', 'Message shown when a chat starts'),
		typeOptions: { rows: 2 },
	},
];

/** A text part of the form. */
function readText(
	ctx: IExecuteFunctions,
	itemIndex: number,
	{ name, type, options }: INodeProperties,
	field: FieldRef,
): string {
	if (type === 'boolean') return String(readBoolean(ctx, itemIndex, field, false));
	if (type === 'color') {
		const check = name === RRGGBB ? checkHexColour : checkAnyHexColour;
		return readString(ctx, itemIndex, field, { required: true, check });
	}
	if (type === 'options') {
		const values = (options as INodePropertyOptions[]).map(({ value }) => String(value));
		const check: TextCheck = (...args) => checkOneOf(...args, values);
		return readString(ctx, itemIndex, field, { required: true, check });
	}
	return readString(ctx, itemIndex, field, { asTyped: name !== IDENTIFIER, added: true });
}

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

export const update = defineOperation<{
	chatbotId: string;
	fields: Array<[string, string]>;
	images: ImageUpload[];
}>({
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
		// No field chosen: the PATCH goes out empty (the spec requires none); it answers the chatbot.
		for (const name of Object.keys(readCollection(this, itemIndex, UPDATE_FIELDS))) {
			const property = FORM_FIELDS.find((candidate) => candidate.name === name);
			if (!property) continue;
			const field = { name: `updateFields.${name}`, label: property.displayName };
			if (Object.hasOwn(UPLOADS, name))
				images.push(await readImage(this, itemIndex, field, UPLOADS[name]));
			else fields.push([name, readText(this, itemIndex, property, field)]);
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
