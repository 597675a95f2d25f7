import { randomBytes } from 'node:crypto';

import { type IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

import { type FieldRef, invalidField, readString } from '../validation';

/** `type/subtype` in RFC 7230 token characters: nothing that could end or add a part header. */
const MIME_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export async function readImage(ctx: IExecuteFunctions, itemIndex: number, field: FieldRef) {
	const property = readString(ctx, itemIndex, field, { required: true });
	const refuse = (problem: string, hint: string) =>
		invalidField(ctx, itemIndex, field, problem, hint);
	const binaries = ctx.getInputData()[itemIndex]?.binary;
	// Own properties only: "toString" or "__proto__" must not find Object.prototype's.
	const binary = binaries && Object.hasOwn(binaries, property) ? binaries[property] : undefined;
	if (!binary || typeof binary !== 'object')
		throw refuse(
			`the input item has no binary field "${property}"`,
			'Name a binary field of the input item, for example data from a Read File or HTTP Request node.',
		);
	// The spec names no image types: the file goes with the type its source gave it, if it is one.
	const mimeType = binary.mimeType || 'application/octet-stream';
	if (!MIME_TYPE.test(mimeType))
		throw refuse(
			`the MIME type of binary field "${property}" (${JSON.stringify(mimeType).slice(0, 60)}) is not a type/subtype such as image/png`,
			"Set the binary data's MIME type to a plain type/subtype (no parameters, spaces or line breaks), for example with an Edit Fields or Code node. Nothing was sent to Voice AI for this item.",
		);
	// Given storedSize the file streams from n8n's store; with none, it is read whole when sent.
	const size =
		binary.id && (await ctx.helpers.getBinaryMetadata(binary.id).catch(() => {}))?.fileSize;
	const storedSize =
		Number.isSafeInteger(size) && (size as number) >= 0 ? (size as number) : undefined;
	const inItem = typeof binary.data === 'string' && Buffer.byteLength(binary.data, 'base64');
	if ((binary.id ? storedSize : inItem) === 0)
		throw refuse(
			`binary field "${property}" is empty (0 bytes)`,
			'An empty file would replace the current image with nothing. Check the node that produced the file. Nothing was sent to Voice AI for this item.',
		);
	return { property, binary: { ...binary, mimeType }, storedSize };
}
export type ImageUpload = Awaited<ReturnType<typeof readImage>> & { part: string };
type Form = { fields: Array<[string, string]>; images: ImageUpload[] };

const escapeName = (name: string) => name.replace(/[\r\n"]/g, encodeURIComponent);

// One Buffer, each file read (streamed from n8n's store if there) into its slot: one copy in
// memory, not FormData's three (docs/benchmark.md); a retry resends it. Escapes, CRLF: WHATWG HTML.
export async function multipartBody(ctx: IExecuteFunctions, itemIndex: number, form: Form) {
	const boundary = `----VoiceAiFormBoundary${randomBytes(16).toString('hex')}`;
	const head = (name: string, file = '') =>
		`--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"${file}\r\n`;
	const parts: Array<Buffer | ImageUpload> = form.fields.map(([name, value]) =>
		Buffer.from(`${head(name)}\r\n${value.replace(/\r\n|\r|\n/g, '\r\n')}\r\n`),
	);
	for (const image of form.images) {
		const { fileName, fileExtension, mimeType } = image.binary;
		const name = escapeName(fileName ?? `${image.part}.${fileExtension ?? 'bin'}`);
		parts.push(
			Buffer.from(`${head(image.part, `; filename="${name}"`)}Content-Type: ${mimeType}\r\n\r\n`),
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
		const end = offset + sizeOf(part);
		const chunks = Buffer.isBuffer(part)
			? [part]
			: ((await ctx.helpers.getBinaryStream(part.binary.id as string)) as AsyncIterable<Buffer>);
		for await (const chunk of chunks) {
			// A stream longer than the size given is only counted, then refused.
			if (offset + chunk.length <= end) chunk.copy(body, offset);
			offset += chunk.length;
		}
		if (offset !== end) {
			const message = `The file for ${(part as ImageUpload).part} changed size while it was being read`;
			const description =
				'n8n reported one size for the binary data and delivered another. Run the node again.';
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
		}
	}
	return { body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}
