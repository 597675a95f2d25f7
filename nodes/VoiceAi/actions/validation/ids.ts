import type { IExecuteFunctions } from 'n8n-workflow';

import { HALF_CHARACTER, LONE_SURROGATE } from '../../transport';
import type { FieldRef, TextCheck } from './fieldError';
import { invalidField, patternCheck } from './fieldError';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/**
 * The longest id that goes into a request path. The spec shows no limit; real ids are a few dozen
 * characters (cb_…, UUIDs, carrier names). 512 characters, percent-encoded at worst (3-byte UTF-8),
 * make about 4.6 KB of path: within the 8 KB request line common servers and proxies accept, so a
 * longer value is a mistake refused here rather than a 414/431 that would read as a base-URL problem.
 */
export const MAX_PATH_ID_LENGTH = 512;

const uuidCheck = patternCheck(
	UUID,
	'is not a UUID',
	'Copy the uuid_config_id from the output of SIP Get, or leave the field empty.',
);

export const checkUuid: TextCheck = (ctx, itemIndex, field, value) =>
	uuidCheck(ctx, itemIndex, field, value).toLowerCase();

/**
 * Any id that goes into a request path (Chatbot, Carrier; a phone number is E.164, 16 characters at
 * most): whole characters only, and at most MAX_PATH_ID_LENGTH of them. The path builder then refuses
 * `/`, `.` and `..` and encodes the rest.
 */
export function checkPathId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
): string {
	if (LONE_SURROGATE.test(value)) {
		throw invalidField(ctx, itemIndex, field, `it ${HALF_CHARACTER}`);
	}
	if (value.length > MAX_PATH_ID_LENGTH) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`it has ${value.length} characters, more than ${MAX_PATH_ID_LENGTH} (the longest id this node sends)`,
		);
	}
	return value;
}

const pathSegmentCheck = patternCheck(
	PATH_SEGMENT,
	'may only hold letters, digits, dots, dashes and underscores',
);

export const checkPathSegment: TextCheck = (ctx, itemIndex, field, value) =>
	pathSegmentCheck(ctx, itemIndex, field, checkPathId(ctx, itemIndex, field, value));
