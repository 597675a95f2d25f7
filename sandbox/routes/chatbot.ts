import type { Router } from 'express';

import { orgOf, strictRouter } from '../context';
import { ApiError, badField, conflict, unauthorized, unsupportedMedia } from '../errors';
import { textHoldsKey } from '../middleware/auth';
import { declaredTypeFits, IMAGE_EXTENSIONS, sniffImage } from '../images';
import { parseMultipart, type UploadedFile } from '../multipart';
import type { Store } from '../store';
import type { Chatbot, Org, PersistentButton } from '../types';
import {
	array,
	boolean,
	colour,
	formBoolean,
	httpUrl,
	type Json,
	object,
	oneOf,
	onlyKeys,
	required,
	text,
} from '../validate';

export const UPLOAD_LIMIT_BYTES = 5 * 1024 * 1024;
export const TEMPLATES = ['classic', 'modern', 'glassmorphism'] as const;
export const BUBBLE_ICONS = [
	'message-circle',
	'sparkles',
	'bot',
	'headphones',
	'help-circle',
	'heart',
] as const;
export const BUBBLE_POSITIONS = ['bottom-right', 'bottom-left', 'bottom-center'] as const;
export const BUBBLE_SIZES = ['small', 'medium', 'large'] as const;
export const BUTTON_ACTION_TYPES = ['url', 'phone', 'email'] as const;

/** The text fields of the update form, exactly as the spec lists them. */
export const FORM_FIELDS = [
	'chatbotName',
	'chatbot_title',
	'header_color',
	'background_color',
	'text_color',
	'pathway_id',
	'welcome_message',
	'template',
	'bubble_icon',
	'bubble_position',
	'bubble_size',
	'auto_open',
	'user_message_color',
	'input_placeholder',
	'greeting_text',
	'show_branding',
	'input_bg_color',
] as const;
export const FILE_FIELDS = ['chatbot_image', 'bubbleIconImage'] as const;
/** The spec pins header_color to #RRGGBB; the other colours are only "hex colour", so the sandbox takes any hex form. */
const COLOUR_FIELDS = ['background_color', 'text_color', 'user_message_color', 'input_bg_color'];
const ANY_HEX_COLOUR = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

function anyHexColour(value: Json, field: string): string {
	if (typeof value !== 'string' || !ANY_HEX_COLOUR.test(value))
		throw badField(field, 'must be a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA)');
	return value;
}

/** Validates one settable field; form values are strings, seed values are JSON. */
export function chatbotField(name: string, value: Json, fromForm: boolean): Json {
	if (name === 'header_color') return colour(value, name);
	if (COLOUR_FIELDS.includes(name)) return anyHexColour(value, name);
	switch (name) {
		case 'chatbotName':
		case 'chatbot_title':
			return text(value, name, { max: 100 });
		case 'pathway_id':
			// An empty form value clears the pathway (the sandbox's reading; the spec does not say how to clear it).
			if (fromForm ? value === '' : value === null) return null;
			return text(value, name, { max: 128 });
		case 'welcome_message':
			return text(value, name, { max: 1000, allowEmpty: true });
		case 'input_placeholder':
		case 'greeting_text':
			return text(value, name, { max: 200, allowEmpty: true });
		case 'template':
			return oneOf(value, TEMPLATES, name);
		case 'bubble_icon':
			return oneOf(value, BUBBLE_ICONS, name);
		case 'bubble_position':
			return oneOf(value, BUBBLE_POSITIONS, name);
		case 'bubble_size':
			return oneOf(value, BUBBLE_SIZES, name);
		case 'auto_open':
		case 'show_branding':
			return fromForm ? formBoolean(value as string, name) : boolean(value, name);
		case 'webhook_url':
			return value === null ? null : httpUrl(value, name);
		case 'persistent_buttons':
			return persistentButtons(value) as unknown as Json;
		default:
			throw badField(name, 'is not a known field');
	}
}

export function persistentButtons(value: Json): PersistentButton[] {
	const list = array(value, 'persistent_buttons');
	if (list.length > 4) throw badField('persistent_buttons', 'must hold at most 4 buttons');
	return list.map((item, i) => {
		const at = `persistent_buttons[${i}]`;
		const button = object(item, at);
		onlyKeys(button, ['label', 'icon', 'action_type', 'action_value'], `${at}.`);
		const action_type = oneOf(
			required(button, 'action_type', `${at}.`),
			BUTTON_ACTION_TYPES,
			`${at}.action_type`,
		);
		const rawValue = required(button, 'action_value', `${at}.`);
		return {
			label: text(required(button, 'label', `${at}.`), `${at}.label`, { max: 50 }),
			icon: text(required(button, 'icon', `${at}.`), `${at}.icon`, { max: 50 }),
			action_type,
			action_value:
				action_type === 'url'
					? httpUrl(rawValue, `${at}.action_value`)
					: text(rawValue, `${at}.action_value`, { max: 200 }),
		};
	});
}

export function newChatbot(id: string, chatbotName: string): Chatbot {
	return {
		id,
		chatbotName,
		chatbot_title: chatbotName,
		header_color: '#1E40AF',
		background_color: '#FFFFFF',
		text_color: '#111827',
		chatbot_image: null,
		pathway_id: null,
		welcome_message: 'Hi! How can we help?',
		webhook_url: null,
		template: 'classic',
		bubble_icon: 'message-circle',
		bubble_position: 'bottom-right',
		bubble_size: 'medium',
		auto_open: false,
		user_message_color: '#2563EB',
		input_placeholder: 'Type a message…',
		greeting_text: '',
		show_branding: true,
		bubble_icon_image: null,
		input_bg_color: '#F3F4F6',
		persistent_buttons: [],
	};
}

export function addChatbot(store: Store, org: Org, chatbot: Chatbot): void {
	if (store.chatbotOwner.has(chatbot.id))
		throw conflict(`chatbot id ${chatbot.id} already exists`, 'id');
	org.chatbots.set(chatbot.id, chatbot);
	store.chatbotOwner.set(chatbot.id, org.id);
}

export function findChatbot(org: Org, id: string): Chatbot {
	const chatbot = org.chatbots.get(id);
	if (!chatbot) throw new ApiError(404, 'chatbot not found');
	return chatbot;
}

function checkImage(file: UploadedFile): keyof typeof IMAGE_EXTENSIONS {
	const actual = sniffImage(file.data);
	if (!actual) {
		throw unsupportedMedia(`${file.field} must be a PNG, JPEG, GIF, WebP or SVG image`, file.field);
	}
	if (!declaredTypeFits(file.declaredType, actual)) {
		throw unsupportedMedia(
			`${file.field} is declared as ${file.declaredType} but its content is ${actual}`,
			file.field,
		);
	}
	return actual;
}

export function chatbotRoutes(store: Store): Router {
	const router = strictRouter();
	router.patch('/chatbot/:id', async (req, res) => {
		const org = orgOf(res);
		const form = await parseMultipart(req, {
			fileFields: FILE_FIELDS,
			textFields: FORM_FIELDS,
			maxFileBytes: UPLOAD_LIMIT_BYTES,
			maxFieldBytes: 16 * 1024,
			maxTotalBytes: 2 * UPLOAD_LIMIT_BYTES + 1024 * 1024,
		});
		res.locals.bodySize = form.bytes;
		if ([...form.fields.values()].some((value) => textHoldsKey(store, value))) {
			throw unauthorized('API keys must be sent in a header, never in a request body');
		}
		const chatbot = findChatbot(org, req.params.id as string);

		const changes: Record<string, Json> = {};
		for (const [name, value] of form.fields) changes[name] = chatbotField(name, value, true);
		const uploads = [...form.files.values()].map((file) => ({ file, type: checkImage(file) }));

		Object.assign(chatbot, changes);
		for (const { file, type } of uploads) {
			const responseField = file.field === 'chatbot_image' ? 'chatbot_image' : 'bubble_icon_image';
			const path = `/uploads/${chatbot.id}/${responseField}-${file.sha256.slice(0, 12)}.${IMAGE_EXTENSIONS[type]}`;
			chatbot[responseField] = path;
			org.uploads.push({
				chatbotId: chatbot.id,
				field: file.field as 'chatbot_image' | 'bubbleIconImage',
				path,
				filename: file.filename,
				contentType: type,
				size: file.data.length,
				sha256: file.sha256,
				at: new Date().toISOString(),
			});
		}
		res.status(200).json(chatbot);
	});
	return router;
}
