import { randomBytes } from 'node:crypto';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FieldRef } from '../validation';
import { invalidField, readString } from '../validation';

export interface ImageUpload {
	/** The form's part. */
	field: string;
	/** The input item's binary property. */
	property: string;
	binary: IBinaryData & { mimeType: string };
	/** The size n8n's binary data store gives for a file it holds; the file is then streamed from there. */
	storedSize?: number;
}

/** `type/subtype` in RFC 7230 token characters: nothing that could end or add a part header. */
const MIME_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The input item's binary property that an image field names, checked before anything is sent: the
 * property exists, its type can be a part header, the file is not empty.
 */
export async function readImage(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	upload: string,
): Promise<ImageUpload> {
	const property = readString(ctx, itemIndex, field, { required: true });
	const refuse = (problem: string, hint: string) =>
		invalidField(ctx, itemIndex, field, problem, hint);
	const binaries = ctx.getInputData()[itemIndex]?.binary;
	// Own properties only: "toString" or "__proto__" must not find Object.prototype's.
	const binary = binaries && Object.hasOwn(binaries, property) ? binaries[property] : undefined;
	if (!binary || typeof binary !== 'object') {
		throw refuse(
			`the input item has no binary field "${property}"`,
			'Name a binary field of the input item, for example data from a Read File or HTTP Request node.',
		);
	}
	// The spec names no image types: the file goes with the type its source gave it, if it is one.
	const mimeType = binary.mimeType || 'application/octet-stream';
	if (!MIME_TYPE.test(mimeType)) {
		throw refuse(
			`the MIME type of binary field "${property}" (${JSON.stringify(mimeType).slice(0, 60)}) is not a type/subtype such as image/png`,
			"Set the binary data's MIME type to a plain type/subtype (no parameters, spaces or line breaks), for example with an Edit Fields or Code node. Nothing was sent to Voice AI for this item.",
		);
	}
	// A store that cannot say the size: the file is read whole when it is sent.
	const stored = binary.id && (await ctx.helpers.getBinaryMetadata(binary.id).catch(() => {}));
	const storedSize =
		stored && Number.isSafeInteger(stored.fileSize) && stored.fileSize >= 0
			? stored.fileSize
			: undefined;
	const inItem = typeof binary.data === 'string' && Buffer.byteLength(binary.data, 'base64');
	if ((binary.id ? storedSize : inItem) === 0) {
		throw refuse(
			`binary field "${property}" is empty (0 bytes)`,
			'An empty file would replace the current image with nothing. Check the node that produced the file. Nothing was sent to Voice AI for this item.',
		);
	}
	return { field: upload, property, binary: { ...binary, mimeType }, storedSize };
}

const escapeName = (name: string) =>
	name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

/**
 * A multipart/form-data body as one Buffer, each file read straight into its slot (streamed from n8n's
 * binary data store when it lives there): an upload holds about one copy of each file, where a FormData
 * with Blobs holds three (docs/benchmark.md). A Buffer is also sent again as it is on a retry. Names are
 * escaped and line breaks sent as CRLF, as browsers do (WHATWG HTML).
 */
export async function multipartBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: Array<[string, string]>,
	images: ImageUpload[],
): Promise<{ body: Buffer; contentType: string }> {
	const boundary = `----VoiceAiFormBoundary${randomBytes(16).toString('hex')}`;
	const head = (name: string, file = '') =>
		`--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"${file}\r\n`;
	const parts: Array<Buffer | ImageUpload> = fields.map(([name, value]) =>
		Buffer.from(`${head(name)}\r\n${value.replace(/\r\n|\r|\n/g, '\r\n')}\r\n`),
	);
	for (const image of images) {
		const { fileName, fileExtension, mimeType } = image.binary;
		const name = fileName ?? `${image.field}.${fileExtension ?? 'bin'}`;
		parts.push(
			Buffer.from(
				`${head(image.field, `; filename="${escapeName(name)}"`)}Content-Type: ${mimeType}\r\n\r\n`,
			),
			image.storedSize === undefined
				? await ctx.helpers.getBinaryDataBuffer(itemIndex, image.property)
				: image,
			Buffer.from('\r\n'),
		);
	}
	parts.push(Buffer.from(`--${boundary}--\r\n`));
	const sizeOf = (part: Buffer | ImageUpload) =>
		Buffer.isBuffer(part) ? part.length : (part.storedSize as number);
	const body = Buffer.allocUnsafe(parts.reduce((sum, part) => sum + sizeOf(part), 0));
	let offset = 0;
	for (const part of parts) {
		if (Buffer.isBuffer(part)) {
			offset += part.copy(body, offset);
			continue;
		}
		const end = offset + sizeOf(part);
		for await (const chunk of await ctx.helpers.getBinaryStream(part.binary.id as string)) {
			if (offset + (chunk as Buffer).length > end) throw fileChanged(ctx, itemIndex, part);
			offset += (chunk as Buffer).copy(body, offset);
		}
		if (offset !== end) throw fileChanged(ctx, itemIndex, part);
	}
	return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

const fileChanged = (ctx: IExecuteFunctions, itemIndex: number, image: ImageUpload) =>
	new NodeOperationError(
		ctx.getNode(),
		`The file for ${image.field} changed size while it was being read`,
		{
			itemIndex,
			description:
				'n8n reported one size for the binary data and delivered another. Run the node again.',
		},
	);
