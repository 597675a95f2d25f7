/** Small image files for upload tests. */

/** A 1x1 PNG. */
export const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
	'base64',
);
export const SVG = Buffer.from(
	'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="3"/></svg>',
);

/** An input item whose binary property `data` holds the given file. */
export const imageItem = (data: Buffer | string, fileName: string, mimeType = 'image/png') => ({
	json: {},
	binary: { data: { data, mimeType, fileName } },
});
