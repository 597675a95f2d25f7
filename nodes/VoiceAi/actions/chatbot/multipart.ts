import { randomBytes } from 'node:crypto';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

interface MultipartFile {
	field: string;
	/** The input item's binary property holding the file. */
	property: string;
	binary: IBinaryData;
	fileName: string;
	mimeType: string;
}

interface MultipartBody {
	body: Buffer;
	contentType: string;
}

const CRLF = '\r\n';

/** Escapes a field or file name the way browsers do in multipart/form-data (WHATWG HTML). */
function escapeName(name: string): string {
	return name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/**
 * A multipart/form-data body as one Buffer, built in place: each file is read straight into its slot
 * (streamed from n8n's binary data store when the file lives there), so an upload holds about one copy
 * of each file. A FormData with Blobs holds three: the file's buffer, the Blob and the encoder's chunk.
 * A Buffer can also be sent again as it is when a request is retried.
 */
export async function buildMultipartBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: Array<[string, string]>,
	files: MultipartFile[],
): Promise<MultipartBody> {
	const boundary = `----VoiceAiFormBoundary${randomBytes(16).toString('hex')}`;
	const textParts = fields.map(([name, value]) =>
		Buffer.from(
			`--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeName(name)}"${CRLF}${CRLF}${value.replace(/\r\n|\r|\n/g, CRLF)}${CRLF}`,
		),
	);
	const fileHeads = files.map((file) =>
		Buffer.from(
			`--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeName(file.field)}"; filename="${escapeName(file.fileName)}"${CRLF}` +
				`Content-Type: ${file.mimeType}${CRLF}${CRLF}`,
		),
	);
	const crlf = Buffer.from(CRLF);
	const closing = Buffer.from(`--${boundary}--${CRLF}`);

	// Sizes first: from the store's metadata where the file is stored, else from the decoded data.
	const sources = await Promise.all(
		files.map(async (file) => await fileSource(ctx, itemIndex, file)),
	);
	const total =
		textParts.reduce((sum, part) => sum + part.length, 0) +
		fileHeads.reduce(
			(sum, head, index) => sum + head.length + sources[index].size + crlf.length,
			0,
		) +
		closing.length;

	const body = Buffer.allocUnsafe(total);
	let offset = 0;
	for (const part of textParts) offset += part.copy(body, offset);
	for (const [index, head] of fileHeads.entries()) {
		offset += head.copy(body, offset);
		offset += await sources[index].writeInto(body, offset);
		offset += crlf.copy(body, offset);
	}
	offset += closing.copy(body, offset);
	return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

interface FileSource {
	size: number;
	/** Copies the file into `body` at `offset`; returns the bytes written (always `size`). */
	writeInto(body: Buffer, offset: number): Promise<number>;
}

async function fileSource(
	ctx: IExecuteFunctions,
	itemIndex: number,
	file: MultipartFile,
): Promise<FileSource> {
	const { id } = file.binary;
	// A store that cannot say the size falls back to reading the whole file below.
	const stored = id ? await ctx.helpers.getBinaryMetadata(id).catch(() => undefined) : undefined;
	if (id && stored && Number.isSafeInteger(stored.fileSize) && stored.fileSize >= 0) {
		const size = stored.fileSize;
		return {
			size,
			async writeInto(body, offset) {
				let written = 0;
				for await (const chunk of await ctx.helpers.getBinaryStream(id)) {
					const bytes = chunk as Buffer;
					if (written + bytes.length > size) throw fileChanged(ctx, itemIndex, file);
					written += bytes.copy(body, offset + written);
				}
				if (written !== size) throw fileChanged(ctx, itemIndex, file);
				return written;
			},
		};
	}
	// Kept in the item itself (n8n's memory mode) or a store without sizes: decoded, then copied.
	const data = await ctx.helpers.getBinaryDataBuffer(itemIndex, file.property);
	return { size: data.length, writeInto: async (body, offset) => data.copy(body, offset) };
}

function fileChanged(ctx: IExecuteFunctions, itemIndex: number, file: MultipartFile): Error {
	return new NodeOperationError(
		ctx.getNode(),
		`The file for ${file.field} changed size while it was being read`,
		{
			itemIndex,
			description:
				'n8n reported one size for the binary data and delivered another. Run the node again.',
		},
	);
}
