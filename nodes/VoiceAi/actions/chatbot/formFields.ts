import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	checkAnyHexColour,
	checkHexColour,
	checkOneOf,
	readBoolean,
	readString,
	type TextCheck,
} from '../validation';
import { type ImageUpload, readImage } from './upload';

// The update form of the spec lists these fields and the two files, nothing else: webhook_url and
// persistent_buttons belong to the Chatbot object but not to the form, so they are never sent. Only the
// rules the spec states are checked (header_color is #RRGGBB, the other colours are hex colours, the
// enumerations); every other value, an empty one included, goes as given (docs/service-assumptions.md).
// A field is read as its property's type says; what the type does not say is named here.

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

/** The value of an added field: a text part of the form, or a file. */
export function readFormField(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: INodeProperties,
): string | Promise<ImageUpload> {
	const { name } = property;
	const field = { name: `updateFields.${name}`, label: property.displayName };
	switch (property.type) {
		case 'boolean':
			return String(readBoolean(ctx, itemIndex, field, false));
		case 'color':
			return readString(ctx, itemIndex, field, {
				required: true,
				check: name === RRGGBB ? checkHexColour : checkAnyHexColour,
			});
		case 'options': {
			const values = (property.options as INodePropertyOptions[]).map(({ value }) => String(value));
			const check: TextCheck = (...args) => checkOneOf(...args, values);
			return readString(ctx, itemIndex, field, { required: true, check });
		}
		default:
			return Object.hasOwn(UPLOADS, name)
				? readImage(ctx, itemIndex, field, UPLOADS[name])
				: readString(ctx, itemIndex, field, { asTyped: name !== IDENTIFIER, added: true });
	}
}
