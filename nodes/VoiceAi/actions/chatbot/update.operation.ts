import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { defineOperation, request, send, toRecords } from '../types';
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
import { type ImageUpload, multipartBody, readImage } from './upload';

const UPDATE = request('PATCH', '/chatbot/{id}');

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
const ANY_HEX = 'A hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA), sent as written';
const colour = (displayName: string, name: string, description = ANY_HEX) =>
	field(displayName, name, description, { type: 'color', default: '#000000' });
const choice = (displayName: string, name: string, values: string, value = values.split(' ')[0]) =>
	field(displayName, name, undefined, {
		type: 'options',
		options: values.split(' ').map((option) => ({
			name: option.replace(/\b\w/g, (c) => c.toUpperCase()).replace(/-/g, ' '),
			value: option,
		})),
		default: value,
	});
const flag = (displayName: string, name: string, value: boolean, description: string) =>
	field(displayName, name, description, { type: 'boolean', default: value });
const image = (displayName: string, name: string, what: string) => {
	const description = `Name of the input binary field holding ${what}; uploaded as ${UPLOADS[name]} with its file name and MIME type`;
	return field(displayName, name, description, { type: 'string', default: 'data' });
};

// The spec's form by display name (no webhook_url, persistent_buttons: it lacks them). Only its
// rules are checked; other values, empty too, go as given (docs/service-assumptions.md).
const FORM_FIELDS: INodeProperties[] = [
	flag('Auto Open', 'auto_open', false, 'Whether the chat window opens automatically'),
	colour('Background Color', 'background_color'),
	choice(
		'Bubble Icon',
		'bubble_icon',
		'bot headphones heart help-circle message-circle sparkles',
		'message-circle',
	),
	image('Bubble Icon Image Field', 'bubbleIconImageProperty', 'a custom bubble icon image'),
	choice(
		'Bubble Position',
		'bubble_position',
		'bottom-center bottom-left bottom-right',
		'bottom-right',
	),
	choice('Bubble Size', 'bubble_size', 'large medium small', 'medium'),
	image('Chatbot Image Field', 'chatbotImageProperty', 'the chatbot image'),
	text('Chatbot Name', 'chatbotName'),
	text('Chatbot Title', 'chatbot_title', 'Title shown in the widget header'),
	text('Greeting Text', 'greeting_text', 'Greeting tooltip shown near the chat bubble'),
	colour('Header Color', 'header_color', 'A #RRGGBB hex colour'),
	colour('Input Background Color', 'input_bg_color'),
	text('Input Placeholder', 'input_placeholder'),
	text(
		'Pathway ID',
		'pathway_id',
		'Left empty, an empty value is sent (how the service reads it is not documented)',
	),
	flag(
		'Show Branding',
		'show_branding',
		true,
		"Whether the chat footer shows the service's powered-by branding",
	),
	choice('Template', 'template', 'classic glassmorphism modern'),
	colour('Text Color', 'text_color'),
	colour('User Message Color', 'user_message_color'),
	{
		...text('Welcome Message', 'welcome_message', 'Message shown when a chat starts'),
		typeOptions: { rows: 2 },
	},
];

function textOptions({ name, type, options }: INodeProperties): Parameters<typeof readString>[3] {
	if (type === 'string') return { asTyped: name !== 'pathway_id', added: true };
	const hex = name === 'header_color' ? checkHexColour : checkAnyHexColour; // the spec pins its form
	const values = (options as INodePropertyOptions[] | undefined)?.map(({ value }) => String(value));
	return { required: true, check: values ? (...args) => checkOneOf(...args, values) : hex };
}

const properties: INodeProperties[] = [
	{
		displayName: 'Chatbot',
		name: 'chatbotId',
		type: 'resourceLocator',
		default: { mode: 'id', value: '' },
		required: true,
		description:
			'The chatbot widget to update (the API shows no list of chatbots, so enter its ID)',
		modes: [{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'cb_123' }],
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: FORM_FIELDS,
	},
];

const FIELDS = fieldsIn(properties, ['chatbotId', 'updateFields']);

export const update = defineOperation({
	name: 'Update',
	summary: 'Change the settings and images of a chatbot widget',
	action: 'Update a chatbot',
	changesData: 'changes data',
	requests: [UPDATE],
	description: properties,
	repeatable: true,
	subjectOf: ({ chatbotId }) => `Chatbot "${chatbotId}"`,
	async validate(itemIndex) {
		const options = { required: true, locator: true, check: checkPathId };
		const chatbotId = readString(this, itemIndex, FIELDS.chatbotId, options);
		const fields: Array<[string, string]> = [];
		const images: ImageUpload[] = [];
		// No field chosen: the PATCH goes out empty (the spec requires none); it answers the chatbot.
		for (const name of Object.keys(readCollection(this, itemIndex, FIELDS.updateFields))) {
			const property = FORM_FIELDS.find((candidate) => candidate.name === name);
			if (!property) continue;
			const field = { name: `updateFields.${name}`, label: property.displayName };
			if (Object.hasOwn(UPLOADS, name))
				images.push({ part: UPLOADS[name], ...(await readImage(this, itemIndex, field)) });
			else if (property.type === 'boolean')
				fields.push([name, String(readBoolean(this, itemIndex, field, false))]);
			else fields.push([name, readString(this, itemIndex, field, textOptions(property))]);
		}
		return { chatbotId, fields, images };
	},
	async execute({ chatbotId, fields, images }, api, itemIndex) {
		const { body, headers } = await multipartBody(this, itemIndex, { fields, images });
		const values = { id: { field: FIELDS.chatbotId, value: chatbotId } };
		return toRecords(await send(api, UPDATE, { values, body, extra: { headers } }));
	},
});
