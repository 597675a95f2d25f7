import type { IExecuteFunctions } from 'n8n-workflow';

import { destinationProblem, httpUrl, refusedUserInfo } from '../../transport';
import type { FieldRef } from './fieldError';
import { invalidField, patternCheck, show } from './fieldError';

const E164 = /^\+[1-9]\d{1,14}$/;
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)';
/** sip:<host> as the spec writes it: a DNS name or an IPv4 address, no user part, port or parameters. */
const SIP_URI = new RegExp(
	`^sip:(?:(?:${HOST_LABEL}\\.)*${HOST_LABEL}|(?:${OCTET}\\.){3}${OCTET})$`,
);
/** A host of digits and dots only must be a real IPv4 address, not a DNS name such as 999.1.1.1. */
const NUMERIC_HOST = /^sip:[\d.]+$/;
const SIP_IPV4 = new RegExp(`^sip:(?:${OCTET}\\.){3}${OCTET}$`);

export const checkE164 = patternCheck(
	E164,
	'is not an E.164 phone number',
	'Use the international E.164 form: a plus sign, the country code and the number, digits only, for example +14155550101.',
);

export function checkHttpUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: FieldRef,
	value: string,
): string {
	const url = httpUrl(value);
	if (!url) {
		// User info may hold a password, a query or fragment a token, and a value cut to its start would
		// show part of either.
		const [address] = value.split(/[?#]/, 1);
		const shown =
			refusedUserInfo(address) !== undefined
				? 'The value (not shown: it holds a user name or password)'
				: address === value
					? show(value)
					: `${show(address)} (its query not shown)`;
		throw invalidField(ctx, itemIndex, field, `${shown} is not an http:// or https:// URL`);
	}
	const problem = destinationProblem(value, url);
	if (problem) throw invalidField(ctx, itemIndex, field, `it ${problem}`);
	return value;
}

export const checkSipUri = patternCheck(
	{
		test: (value) => SIP_URI.test(value) && !(NUMERIC_HOST.test(value) && !SIP_IPV4.test(value)),
	},
	'is not a SIP URI',
	'Use the form sip:<host>, for example sip:pbx.example.com.',
);
