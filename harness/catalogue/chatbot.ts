import type { InputItem } from '../engine';
import { PNG, SVG } from '../images';

import { bad, literal } from './shared';
import type { InvalidInput, OperationCases } from './types';

const COLOURS = ['red', '#123', '#12345G', '112233', '#1122334', 'rgb(1,2,3)'];
const OTHER_COLOURS: Array<[string, string]> = [
	['background_color', 'Background Color'],
	['text_color', 'Text Color'],
	['user_message_color', 'User Message Color'],
	['input_bg_color', 'Input Background Color'],
];
/** Items with a binary property `data`; item `at` has the given MIME type, the others a PNG. */
const image = (mimeType: string, at = 0): InputItem[] =>
	Array.from({ length: at + 1 }, (_, index) => ({
		json: {},
		binary: {
			data: { data: 'hello', mimeType: index === at ? mimeType : 'image/png', fileName: 'file' },
		},
	}));
/** The example's Chatbot Update fields that are text, as typed and as sent. */
const CHATBOT_TEXT_FIELDS = {
	chatbotName: 'Support',
	chatbot_title: 'Ask us',
	header_color: '#112233',
	background_color: '#FFFFFF',
	text_color: '#000000',
	user_message_color: '#0A0B0C',
	input_bg_color: '#EEEEEE',
	pathway_id: 'pw_1',
	welcome_message: 'Hello there',
	template: 'glassmorphism',
	bubble_icon: 'sparkles',
	bubble_position: 'bottom-left',
	bubble_size: 'large',
	input_placeholder: 'Ask anything',
	greeting_text: '',
};

export const chatbotCases: Record<string, OperationCases> = {
	update: {
		example: {
			parameters: {
				chatbotId: 'cb_acme_support',
				updateFields: {
					...CHATBOT_TEXT_FIELDS,
					auto_open: true,
					show_branding: false,
					chatbotImageProperty: 'logo',
					bubbleIconImageProperty: 'icon',
				},
			},
			items: [
				{
					json: {},
					binary: {
						logo: { data: PNG, mimeType: 'image/png', fileName: 'logo.png' },
						icon: { data: SVG, mimeType: 'image/svg+xml', fileName: 'bubble.svg' },
					},
				},
			],
			sends: [
				{
					method: 'PATCH',
					url: '/chatbot/cb_acme_support',
					// each field a form field, the switches as text
					form: { ...CHATBOT_TEXT_FIELDS, auto_open: 'true', show_branding: 'false' },
					files: {
						chatbot_image: { filename: 'logo.png', type: 'image/png', size: PNG.length },
						bubbleIconImage: { filename: 'bubble.svg', type: 'image/svg+xml', size: SVG.length },
					},
				},
			],
			check(result) {
				expect(result.items).toHaveLength(1);
				expect(result.items[0].json).toMatchObject({
					id: 'cb_acme_support',
					chatbotName: 'Support',
					header_color: '#112233',
					template: 'glassmorphism',
					auto_open: true,
					show_branding: false,
					greeting_text: '',
					chatbot_image: expect.stringMatching(/\.png$/),
					bubble_icon_image: expect.stringMatching(/\.svg$/),
				});
			},
			holds(state, result) {
				const { chatbot_image, bubble_icon_image } = result.items[0].json;
				expect(state.chatbots.find((chatbot) => chatbot.id === 'cb_acme_support')).toMatchObject({
					...CHATBOT_TEXT_FIELDS,
					auto_open: true,
					show_branding: false,
					chatbot_image,
					bubble_icon_image,
				});
			},
		},
		validBase: { chatbotId: 'cb_acme_support', updateFields: {} },
		invalid: [
			// header_color has a stated form (#RRGGBB); the other colours take any hex form (#RGB, #RGBA,
			// #RRGGBB, #RRGGBBAA, docs/service-assumptions.md) and nothing else.
			...literal('updateFields.header_color', 'Header Color', [...COLOURS, '={{ 0x112233 }}']),
			...OTHER_COLOURS.flatMap(([name, label]) =>
				bad(
					`updateFields.${name}`,
					label,
					[0x112233, { hex: '#FFFFFF' }, 'red', '#12345', '112233', 'rgb(1,2,3)', ''],
					{ good: '#FFFFFF' },
				),
			),
			...bad('updateFields.template', 'Template', ['retro', 'Classic', 1, ''], { good: 'modern' }),
			...bad('updateFields.bubble_icon', 'Bubble Icon', ['star', ['bot']], { good: 'bot' }),
			...bad('updateFields.bubble_position', 'Bubble Position', ['top-left', 'bottom_right'], {
				good: 'bottom-left',
			}),
			...bad('updateFields.bubble_size', 'Bubble Size', ['huge', 3], { good: 'small' }),
			...bad('updateFields.auto_open', 'Auto Open', ['yes', 1, 'TRUE', null], { good: true }),
			...bad('updateFields.show_branding', 'Show Branding', ['no', 0], { good: false }),
			...bad('updateFields.chatbotName', 'Chatbot Name', [42, { name: 'x' }], { good: 'Support' }),
			...bad('updateFields.welcome_message', 'Welcome Message', [{ a: 1 }, ['hi']], {
				good: 'Hello',
			}),
			...bad('updateFields.chatbot_title', 'Chatbot Title', [7], { good: 'Title' }),
			...bad(
				'chatbotId',
				'Chatbot',
				// a lone surrogate (text cut in the middle of an emoji) and an id past the 512 characters
				[42, '', { id: 'cb_acme_support' }, null, 'cb_\uD83D', 'c'.repeat(70_000)],
				{ with: { updateFields: { chatbotName: 'x' } } },
			),
			...[
				{ bad: 'logo', items: image('image/png') },
				{ bad: 'data', items: [{ json: {} }] },
				// names of Object.prototype's members are not binary fields of the item
				...['toString', 'constructor', '__proto__', 'hasOwnProperty'].map((name) => ({
					bad: name,
					items: image('image/png'),
				})),
				// a MIME type that would add a part header, one that is not type/subtype, an empty file
				{ bad: 'data', items: image('image/png\r\nX-Injected: yes') },
				{ bad: 'data', items: image('image png') },
				{
					bad: 'data',
					items: [{ json: {}, binary: { data: { data: '', mimeType: 'image/png' } } }],
				},
			].map(
				(value): InvalidInput => ({
					path: 'updateFields.chatbotImageProperty',
					label: 'Chatbot Image Field',
					literal: true,
					...value,
				}),
			),
			...bad('updateFields.chatbotImageProperty', 'Chatbot Image Field', [5, ''], {
				good: 'data',
				items: image('image/png', 2),
			}),
		],
		failing: {
			parameters: { chatbotId: '={{ $json.id }}', updateFields: { chatbot_title: 'Ask us' } },
			items: [{ json: { id: 'cb_acme_support' } }, { json: { id: 'cb_missing' } }],
			at: 1,
			message: /cb_missing/,
			httpCode: '404',
		},
	},
};
