import busboy from 'busboy';
import type { Request } from 'express';
import { createHash } from 'node:crypto';

import { ApiError, badField, badRequest, drainRequest, tooLarge, unsupportedMedia } from './errors';

export interface UploadedFile {
	field: string;
	filename: string | null;
	declaredType: string | undefined;
	data: Buffer;
	sha256: string;
}

export interface MultipartLimits {
	fileFields: readonly string[];
	textFields: readonly string[];
	maxFileBytes: number;
	maxFieldBytes: number;
	maxTotalBytes: number;
}

export interface MultipartForm {
	fields: Map<string, string>;
	files: Map<string, UploadedFile>;
	bytes: number;
}

/**
 * Streams a multipart/form-data body through busboy. Size limits are enforced while reading: a file past
 * its limit is not kept, the rest of the body is read and dropped, and the first problem found is thrown
 * once the body has ended.
 */
export function parseMultipart(req: Request, limits: MultipartLimits): Promise<MultipartForm> {
	const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (type !== 'multipart/form-data') {
		return drainRequest(req).then(() => {
			throw unsupportedMedia('request body must be multipart/form-data');
		});
	}
	const declaredLength = Number(req.headers['content-length'] ?? 0);
	if (declaredLength > limits.maxTotalBytes) {
		return drainRequest(req, 0).then(() => {
			throw tooLarge(`request body exceeds ${limits.maxTotalBytes} bytes`);
		});
	}

	let parser: busboy.Busboy;
	try {
		parser = busboy({
			headers: req.headers,
			limits: {
				// busboy truncates when a file reaches its limit: one byte over ours is the first refused size.
				fileSize: limits.maxFileBytes + 1,
				fieldSize: limits.maxFieldBytes,
				files: limits.fileFields.length,
				fields: limits.textFields.length,
				// busboy counts the closing boundary too: a form with every field would reach the limit.
				parts: limits.fileFields.length + limits.textFields.length + 1,
				fieldNameSize: 100,
			},
		});
	} catch {
		return drainRequest(req).then(() => {
			throw badRequest('malformed multipart/form-data body (missing boundary?)');
		});
	}

	return new Promise<MultipartForm>((resolve, reject) => {
		const form: MultipartForm = { fields: new Map(), files: new Map(), bytes: 0 };
		let problem: ApiError | undefined;
		let settled = false;
		const fail = (err: ApiError) => {
			problem ??= err;
		};
		const finish = (abandon = false) => {
			if (settled) return;
			settled = true;
			req.unpipe(parser);
			if (problem) void drainRequest(req, abandon ? 0 : undefined).then(() => reject(problem));
			else resolve(form);
		};
		const seen = new Set<string>();
		const once = (name: string) => {
			if (seen.has(name)) fail(badField(name, 'must be sent only once'));
			seen.add(name);
		};

		parser.on('field', (name, value, info) => {
			if (limits.fileFields.includes(name)) return fail(badField(name, 'must be a file upload'));
			if (!limits.textFields.includes(name))
				return fail(badField(name, 'is not a known form field'));
			once(name);
			if (info.valueTruncated)
				return fail(tooLarge(`${name} exceeds ${limits.maxFieldBytes} bytes`, name));
			form.fields.set(name, value);
		});

		parser.on('file', (name, stream, info) => {
			if (!limits.fileFields.includes(name)) {
				fail(
					badField(
						name,
						limits.textFields.includes(name)
							? 'must be a text field, not a file'
							: 'is not a known form field',
					),
				);
				stream.resume();
				return;
			}
			once(name);
			const hash = createHash('sha256');
			const chunks: Buffer[] = [];
			stream.on('data', (chunk: Buffer) => {
				if (problem) return;
				chunks.push(chunk);
				hash.update(chunk);
			});
			stream.on('limit', () =>
				fail(tooLarge(`${name} exceeds the ${limits.maxFileBytes} byte upload limit`, name)),
			);
			stream.on('end', () => {
				if (problem || stream.truncated) return;
				form.files.set(name, {
					field: name,
					filename: info.filename ?? null,
					declaredType: info.mimeType,
					data: Buffer.concat(chunks),
					sha256: hash.digest('hex'),
				});
			});
		});

		parser.on('filesLimit', () =>
			fail(tooLarge(`at most ${limits.fileFields.length} files per request`)),
		);
		parser.on('fieldsLimit', () =>
			fail(tooLarge(`at most ${limits.textFields.length} text fields per request`)),
		);
		parser.on('partsLimit', () => fail(tooLarge('too many parts in the form')));
		parser.on('error', () => {
			fail(badRequest('malformed multipart/form-data body'));
			finish();
		});
		parser.on('close', () => finish());

		req.on('data', (chunk: Buffer) => {
			form.bytes += chunk.length;
			if (form.bytes > limits.maxTotalBytes) {
				fail(tooLarge(`request body exceeds ${limits.maxTotalBytes} bytes`));
				finish(true);
			}
		});
		req.on('aborted', () => {
			fail(badRequest('request body was incomplete'));
			finish();
		});
		req.pipe(parser);
	});
}
