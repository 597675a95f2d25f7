import { createHash, randomBytes } from 'node:crypto';

/** `ct_` followed by 40 characters of [A-Za-z0-9]: about 238 bits of randomness. */
export const KEY_PATTERN = /^ct_[A-Za-z0-9]{40}$/;
/** Finds key-shaped substrings anywhere in a text (a query string, a JSON string value, a form field). */
export const KEY_IN_TEXT = /ct_[A-Za-z0-9]{40}/g;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomToken(length: number): string {
	// 248 = 4 * 62: bytes at or above it are dropped so every character is equally likely.
	let out = '';
	while (out.length < length) {
		for (const byte of randomBytes(length * 2)) {
			if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
		}
	}
	return out;
}

export function newApiKey(): string {
	return `ct_${randomToken(40)}`;
}

export function hashKey(key: string): string {
	return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What is shown after creation: the prefix, the first four random characters, and a mask. */
export function maskKey(key: string): string {
	return `${key.slice(0, 7)}${'*'.repeat(8)}`;
}

export function newId(prefix: string, length = 16): string {
	return `${prefix}_${randomToken(length)}`;
}
