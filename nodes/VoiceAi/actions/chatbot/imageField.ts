import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { FieldRef } from '../validation';
import { invalidField, readString } from '../validation';

// An image field of Chatbot Update names a binary field of the input item; the file goes as a part of
// the multipart form. Checked before anything is sent: the field exists, the type can be a part header,
// the file is not empty.

export interface ImageUpload {
	field: string;
	property: string;
	binary: IBinaryData;
}

/** `type/subtype` in RFC 7230 token characters: nothing that could end or add a part header. */
const MIME_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** How many bytes the binary holds, from the store's metadata or the item's own data. */
async function binarySize(
	this: IExecuteFunctions,
	binary: IBinaryData,
): Promise<number | undefined> {
	if (binary.id) {
		const stored = await this.helpers.getBinaryMetadata(binary.id).catch(() => undefined);
		return stored && Number.isSafeInteger(stored.fileSize) ? stored.fileSize : undefined;
	}
	return typeof binary.data === 'string' ? Buffer.byteLength(binary.data, 'base64') : undefined;
}

/** The input item's binary property that an image field names, sent as the form's `upload` part. */
export async function readImage(
	this: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	upload: string,
): Promise<ImageUpload> {
	const property = readString(this, itemIndex, field, { required: true });
	const binaries = this.getInputData()[itemIndex]?.binary;
	// Own properties only: "toString" or "__proto__" must not find Object.prototype's.
	const binary = binaries && Object.hasOwn(binaries, property) ? binaries[property] : undefined;
	if (!binary || typeof binary !== 'object') {
		throw invalidField(
			this,
			itemIndex,
			field,
			`the input item has no binary field "${property}"`,
			'Name a binary field of the input item, for example data from a Read File or HTTP Request node.',
		);
	}
	// The spec names no image types: the file goes with the type its source gave it, if it is one.
	const mimeType = binary.mimeType || 'application/octet-stream';
	if (!MIME_TYPE.test(mimeType)) {
		throw invalidField(
			this,
			itemIndex,
			field,
			`the MIME type of binary field "${property}" (${JSON.stringify(mimeType).slice(0, 60)}) is not a type/subtype such as image/png`,
			"Set the binary data's MIME type to a plain type/subtype (no parameters, spaces or line breaks), for example with an Edit Fields or Code node. Nothing was sent to Voice AI for this item.",
		);
	}
	if ((await binarySize.call(this, binary)) === 0) {
		throw invalidField(
			this,
			itemIndex,
			field,
			`binary field "${property}" is empty (0 bytes)`,
			'An empty file would replace the current image with nothing. Check the node that produced the file. Nothing was sent to Voice AI for this item.',
		);
	}
	return { field: upload, property, binary: { ...binary, mimeType } };
}
