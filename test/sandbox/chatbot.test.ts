import { createHash } from 'node:crypto';
import { FormData } from 'undici';

import { expectError, JPEG_BYTES, PNG_BYTES, SVG_TEXT } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

const CHATBOT_FIELDS = [
	'id',
	'chatbotName',
	'chatbot_title',
	'header_color',
	'background_color',
	'text_color',
	'chatbot_image',
	'pathway_id',
	'welcome_message',
	'webhook_url',
	'template',
	'bubble_icon',
	'bubble_position',
	'bubble_size',
	'auto_open',
	'user_message_color',
	'input_placeholder',
	'greeting_text',
	'show_branding',
	'bubble_icon_image',
	'input_bg_color',
	'persistent_buttons',
].sort();

function form(
	fields: Record<string, string>,
	files: Record<string, { data: Buffer | string; type?: string; name?: string }> = {},
): FormData {
	const body = new FormData();
	for (const [name, value] of Object.entries(fields)) body.append(name, value);
	for (const [name, file] of Object.entries(files)) {
		body.append(
			name,
			new Blob([file.data], file.type ? { type: file.type } : {}),
			file.name ?? `${name}.bin`,
		);
	}
	return body;
}

describe('sandbox PATCH /chatbot/{id}', () => {
	const h = startedSandbox({}, true);

	const patch = (id: string, body: FormData, key?: string) =>
		h().api('PATCH', `/chatbot/${id}`, { form_data: body, ...(key ? { key } : {}) });

	it('updates text fields and returns the whole Chatbot object', async () => {
		const reply = await patch(
			'cb_acme_support',
			form({
				chatbotName: 'Acme Help',
				header_color: '#AABBCC',
				template: 'glassmorphism',
				bubble_icon: 'help-circle',
				bubble_position: 'bottom-center',
				bubble_size: 'small',
				auto_open: 'true',
				show_branding: 'false',
				welcome_message: '',
				pathway_id: 'pw_42',
			}),
		);
		expect(reply.status).toBe(200);
		expect(Object.keys(reply.body).sort()).toEqual(CHATBOT_FIELDS);
		expect(reply.body).toMatchObject({
			id: 'cb_acme_support',
			chatbotName: 'Acme Help',
			chatbot_title: 'Acme Dental Support',
			header_color: '#AABBCC',
			template: 'glassmorphism',
			auto_open: true,
			show_branding: false,
			welcome_message: '',
			pathway_id: 'pw_42',
		});
		const state = await h().admin('GET', '/orgs/org_acme/state');
		expect(state.body.chatbots.find((c: { id: string }) => c.id === 'cb_acme_support')).toEqual(
			reply.body,
		);
	});

	/** The colours the spec does not pin, each in another hex form: #RGB, #RGBA, #RRGGBB, #RRGGBBAA. */
	const EVERY_HEX_FORM = {
		background_color: '#abc',
		text_color: '#ABCD',
		user_message_color: '#a1B2c3',
		input_bg_color: '#AABBCCDD',
	};

	it('takes every hex form in the colours the spec does not pin, and only #RRGGBB in header_color', async () => {
		const reply = await patch('cb_acme_support', form(EVERY_HEX_FORM));
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject(EVERY_HEX_FORM);
		for (const value of ['#abc', '#AABBCCDD', ''])
			expectError(
				await patch('cb_acme_support', form({ header_color: value })),
				400,
				'invalid_field',
				'header_color',
			);
	});

	it('accepts both image files and records what arrived', async () => {
		const reply = await patch(
			'cb_acme_booking',
			form(
				{ chatbot_title: 'Booking' },
				{
					chatbot_image: { data: PNG_BYTES, type: 'image/png', name: 'logo.png' },
					bubbleIconImage: { data: SVG_TEXT, type: 'image/svg+xml', name: 'bubble.svg' },
				},
			),
		);
		expect(reply.status).toBe(200);
		expect(reply.body.chatbot_image).toMatch(
			/^\/uploads\/cb_acme_booking\/chatbot_image-[0-9a-f]{12}\.png$/,
		);
		expect(reply.body.bubble_icon_image).toMatch(
			/^\/uploads\/cb_acme_booking\/bubble_icon_image-[0-9a-f]{12}\.svg$/,
		);
		const uploads = (await h().admin('GET', '/orgs/org_acme/state')).body.uploads;
		expect(uploads).toEqual([
			expect.objectContaining({
				field: 'chatbot_image',
				filename: 'logo.png',
				contentType: 'image/png',
				size: PNG_BYTES.length,
				sha256: createHash('sha256').update(PNG_BYTES).digest('hex'),
			}),
			expect.objectContaining({
				field: 'bubbleIconImage',
				filename: 'bubble.svg',
				contentType: 'image/svg+xml',
				size: Buffer.byteLength(SVG_TEXT),
			}),
		]);
	});

	it('accepts a form with every field of the spec and both images', async () => {
		const text = {
			chatbotName: 'Acme Help',
			chatbot_title: 'Ask us',
			header_color: '#112233',
			background_color: '#FFFFFF',
			text_color: '#000000',
			pathway_id: 'pw_1',
			welcome_message: 'Hello',
			template: 'modern',
			bubble_icon: 'bot',
			bubble_position: 'bottom-left',
			bubble_size: 'large',
			auto_open: 'true',
			user_message_color: '#0A0B0C',
			input_placeholder: 'Ask anything',
			greeting_text: '',
			show_branding: 'false',
			input_bg_color: '#EEEEEE',
		};
		const reply = await patch(
			'cb_acme_support',
			form(text, {
				chatbot_image: { data: PNG_BYTES, type: 'image/png', name: 'logo.png' },
				bubbleIconImage: { data: SVG_TEXT, type: 'image/svg+xml', name: 'bubble.svg' },
			}),
		);
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ ...text, auto_open: true, show_branding: false });
	});

	it('recognises the image by its bytes when the declared type is generic', async () => {
		const reply = await patch(
			'cb_acme_support',
			form({}, { chatbot_image: { data: JPEG_BYTES, type: 'application/octet-stream' } }),
		);
		expect(reply.status).toBe(200);
		expect(reply.body.chatbot_image).toMatch(/\.jpg$/);
	});

	it('answers 200 with the unchanged chatbot for an empty form', async () => {
		const before = (await h().admin('GET', '/orgs/org_acme/state')).body.chatbots[0];
		const reply = await patch('cb_acme_support', form({ chatbotName: before.chatbotName }));
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual(before);
	});

	it('answers 413 for a file over 5 MiB and changes nothing', async () => {
		const big = Buffer.concat([PNG_BYTES, Buffer.alloc(5 * 1024 * 1024)]);
		const reply = await patch(
			'cb_acme_support',
			form({ chatbotName: 'Changed' }, { chatbot_image: { data: big, type: 'image/png' } }),
		);
		expectError(reply, 413, 'payload_too_large', 'chatbot_image');
		const state = await h().admin('GET', '/orgs/org_acme/state');
		expect(state.body.chatbots[0]).toMatchObject({
			chatbotName: 'Acme Support',
			chatbot_image: null,
		});
		expect(state.body.uploads).toEqual([]);
	});

	it('accepts a file of exactly 5 MiB', async () => {
		const exact = Buffer.concat([PNG_BYTES, Buffer.alloc(5 * 1024 * 1024 - PNG_BYTES.length)]);
		const reply = await patch(
			'cb_acme_support',
			form({}, { bubbleIconImage: { data: exact, type: 'image/png' } }),
		);
		expect(reply.status).toBe(200);
	});

	it('answers 415 for a file that is not an image, whatever it claims to be', async () => {
		const pdf = await patch(
			'cb_acme_support',
			form({}, { chatbot_image: { data: '%PDF-1.7\n', type: 'image/png' } }),
		);
		expectError(pdf, 415, 'unsupported_media_type', 'chatbot_image');
		const text = await patch(
			'cb_acme_support',
			form({}, { bubbleIconImage: { data: 'hello', type: 'text/plain' } }),
		);
		expectError(text, 415, 'unsupported_media_type', 'bubbleIconImage');
		const empty = await patch(
			'cb_acme_support',
			form({}, { chatbot_image: { data: Buffer.alloc(0), type: 'image/png' } }),
		);
		expectError(empty, 415, 'unsupported_media_type', 'chatbot_image');
	});

	it('answers 415 when the declared image type contradicts the bytes', async () => {
		const reply = await patch(
			'cb_acme_support',
			form({}, { chatbot_image: { data: PNG_BYTES, type: 'image/gif' } }),
		);
		expectError(reply, 415, 'unsupported_media_type', 'chatbot_image');
	});

	it('answers 415 for a body that is not multipart/form-data', async () => {
		const reply = await h().api('PATCH', '/chatbot/cb_acme_support', {
			json: { chatbotName: 'JSON' },
		});
		expectError(reply, 415, 'unsupported_media_type');
	});

	it.each([
		['header_color', 'blue'],
		['background_color', 'white'],
		['text_color', '#GGGGGG'],
		['user_message_color', '112233'],
		['input_bg_color', '#1122334'],
		['text_color', ''],
		['background_color', 'rgb(1,2,3)'],
		['template', 'retro'],
		['bubble_icon', 'smile'],
		['bubble_position', 'top-left'],
		['bubble_size', 'huge'],
		['auto_open', 'yes'],
		['show_branding', 'TRUE'],
		['auto_open', '1'],
		['chatbotName', ''],
		['chatbot_title', '  '],
		['webhook_url', 'https://hooks.example'],
		['persistent_buttons', '[]'],
		['owner', 'me'],
	])('answers 400 naming %s for the value %j', async (field, value) => {
		expectError(
			await patch('cb_acme_support', form({ [field]: value })),
			400,
			'invalid_field',
			field,
		);
	});

	it('answers 400 for a field sent twice or a file in a text field', async () => {
		const twice = new FormData();
		twice.append('chatbotName', 'a');
		twice.append('chatbotName', 'b');
		expectError(await patch('cb_acme_support', twice), 400, 'invalid_field', 'chatbotName');
		const fileAsText = await patch(
			'cb_acme_support',
			form({}, { chatbotName: { data: 'x', type: 'text/plain' } }),
		);
		expectError(fileAsText, 400, 'invalid_field', 'chatbotName');
		const textAsFile = await patch('cb_acme_support', form({ chatbot_image: 'logo.png' }));
		expectError(textAsFile, 400, 'invalid_field', 'chatbot_image');
	});

	it("answers 404 for an unknown id, and for another organization's chatbot", async () => {
		expectError(await patch('cb_nope', form({ chatbotName: 'x' })), 404, 'not_found');
		const foreign = await patch('cb_globex_main', form({ chatbotName: 'Hijacked' }));
		expectError(foreign, 404, 'not_found');
		expect(foreign.body).toEqual((await patch('cb_nope', form({ chatbotName: 'x' }))).body);
		const globex = await h().admin('GET', '/orgs/org_globex/state');
		expect(globex.body.chatbots[0].chatbotName).toBe('Globex Assistant');
	});
});
