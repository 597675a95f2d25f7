import type { INodeProperties } from 'n8n-workflow';

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
// Only the rules the spec states are checked (by update.operation.ts: header_color is #RRGGBB, the other
// colours are hex colours, the enumerations); every other value, an empty one included, goes to the
// service as given (docs/service-assumptions.md).

/** One entry of the update form: how the editor shows it and how its value is read and sent. */
type FormField = { name: string; displayName: string; description?: string } &
	/** `id`: an identifier, trimmed; other text is free text, sent as typed. */
	(| { kind: 'text'; rows?: number; id?: boolean }
		/** `rrggbbOnly`: the spec pins this colour to #RRGGBB; the others take any hex form. */
		| { kind: 'colour'; rrggbbOnly?: boolean }
		| { kind: 'choice'; values: readonly string[]; default: string }
		| { kind: 'boolean'; default: boolean }
		/** The field names the input item's binary property; the file goes as the form's `upload` part. */
		| { kind: 'image'; upload: string }
	);

/** In the editor's order (alphabetical by display name). */
export const FORM_FIELDS: FormField[] = [
	{
		kind: 'boolean',
		name: 'auto_open',
		displayName: 'Auto Open',
		default: false,
		description: 'Whether the chat window opens automatically',
	},
	{
		kind: 'colour',
		name: 'background_color',
		displayName: 'Background Color',
		description: 'Background colour of the widget',
	},
	{
		kind: 'choice',
		name: 'bubble_icon',
		displayName: 'Bubble Icon',
		values: BUBBLE_ICONS,
		default: 'message-circle',
		description: 'Icon of the chat bubble',
	},
	{
		kind: 'image',
		name: 'bubbleIconImageProperty',
		displayName: 'Bubble Icon Image Field',
		upload: 'bubbleIconImage',
		description:
			'Name of the input binary field holding a custom bubble icon image; uploaded as bubbleIconImage with its file name and MIME type',
	},
	{
		kind: 'choice',
		name: 'bubble_position',
		displayName: 'Bubble Position',
		values: BUBBLE_POSITIONS,
		default: 'bottom-right',
	},
	{
		kind: 'choice',
		name: 'bubble_size',
		displayName: 'Bubble Size',
		values: BUBBLE_SIZES,
		default: 'medium',
	},
	{
		kind: 'image',
		name: 'chatbotImageProperty',
		displayName: 'Chatbot Image Field',
		upload: 'chatbot_image',
		description:
			'Name of the input binary field holding the chatbot image; uploaded as chatbot_image with its file name and MIME type',
	},
	{ kind: 'text', name: 'chatbotName', displayName: 'Chatbot Name' },
	{
		kind: 'text',
		name: 'chatbot_title',
		displayName: 'Chatbot Title',
		description: 'Title shown in the widget header',
	},
	{
		kind: 'text',
		name: 'greeting_text',
		displayName: 'Greeting Text',
		description: 'Greeting tooltip shown near the chat bubble',
	},
	{
		kind: 'colour',
		name: 'header_color',
		displayName: 'Header Color',
		description: 'Header colour of the widget',
		rrggbbOnly: true,
	},
	{
		kind: 'colour',
		name: 'input_bg_color',
		displayName: 'Input Background Color',
		description: 'Background colour of the message input',
	},
	{
		kind: 'text',
		name: 'input_placeholder',
		displayName: 'Input Placeholder',
		description: 'Placeholder text of the message input',
	},
	{
		kind: 'text',
		id: true,
		name: 'pathway_id',
		displayName: 'Pathway ID',
		description:
			'Pathway identifier; left empty, an empty value is sent (how the service reads it is not documented)',
	},
	{
		kind: 'boolean',
		name: 'show_branding',
		displayName: 'Show Branding',
		default: true,
		description: "Whether the chat footer shows the service's powered-by branding",
	},
	{
		kind: 'choice',
		name: 'template',
		displayName: 'Template',
		values: TEMPLATES,
		default: 'classic',
	},
	{
		kind: 'colour',
		name: 'text_color',
		displayName: 'Text Color',
		description: 'Text colour of the widget',
	},
	{
		kind: 'colour',
		name: 'user_message_color',
		displayName: 'User Message Color',
		description: 'Colour of the user message bubbles',
	},
	{
		kind: 'text',
		name: 'welcome_message',
		displayName: 'Welcome Message',
		rows: 2,
		description: 'Message shown when a chat starts',
	},
];

export const FIELD_BY_NAME = new Map(FORM_FIELDS.map((field) => [field.name, field]));

const choice = (values: readonly string[]) =>
	values.map((value) => ({
		name: value.replace(
			/(^|-)(\w)/g,
			(_m, dash: string, c: string) => (dash ? ' ' : '') + c.toUpperCase(),
		),
		value,
	}));

export function toProperty(field: FormField): INodeProperties {
	const { name, displayName, description } = field;
	const shown = { displayName, name, ...(description === undefined ? {} : { description }) };
	switch (field.kind) {
		case 'text':
			return {
				...shown,
				type: 'string',
				...(field.rows ? { typeOptions: { rows: field.rows } } : {}),
				default: '',
			};
		case 'colour':
			return {
				...shown,
				type: 'color',
				default: '#000000',
				description: field.rrggbbOnly
					? `${description}, as #RRGGBB`
					: `${description}: a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA), sent as written`,
			};
		case 'choice':
			return { ...shown, type: 'options', options: choice(field.values), default: field.default };
		case 'boolean':
			return { ...shown, type: 'boolean', default: field.default };
		case 'image':
			return { ...shown, type: 'string', default: 'data' };
	}
}
