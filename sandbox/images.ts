/** Image types the chatbot accepts, recognised by their first bytes rather than the declared MIME type. */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/svg+xml';

export const IMAGE_EXTENSIONS: Record<ImageType, string> = {
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/gif': 'gif',
	'image/webp': 'webp',
	'image/svg+xml': 'svg',
};

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function sniffImage(data: Buffer): ImageType | undefined {
	if (data.length >= 8 && data.subarray(0, 8).equals(PNG)) return 'image/png';
	if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff)
		return 'image/jpeg';
	const head = data.subarray(0, 12).toString('latin1');
	if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
	if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
	if (isSvg(data)) return 'image/svg+xml';
	return undefined;
}

/** An SVG is UTF-8 text whose first element (after an optional XML declaration, comments and doctype) is <svg. */
function isSvg(data: Buffer): boolean {
	let text = data.subarray(0, 4096).toString('utf8');
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	const rest = text
		.replace(/^\s*<\?xml[^>]*\?>/, '')
		.replace(/^(\s*<!--[\s\S]*?-->)*/, '')
		.replace(/^\s*<!DOCTYPE[^>]*>/i, '')
		.replace(/^(\s*<!--[\s\S]*?-->)*/, '');
	return /^\s*<svg[\s>]/.test(rest);
}

/** The declared type must be absent, generic, or the same type the bytes show. */
export function declaredTypeFits(declared: string | undefined, actual: ImageType): boolean {
	const type = (declared ?? '').split(';')[0].trim().toLowerCase();
	if (type === '' || type === 'application/octet-stream') return true;
	if (type === 'image/jpg' || type === 'image/pjpeg') return actual === 'image/jpeg';
	return type === actual;
}
