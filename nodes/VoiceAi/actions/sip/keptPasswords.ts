import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fieldIn, invalidField } from '../validation';
import type { SipIntent } from './configuration';
import { updateProperties } from './fields';

// "Keep" writes back the fields GET returned. Whether GET returns SIP passwords in clear is not shown by
// the spec: a password that is masked (only * or • characters), empty, or missing beside a user name
// cannot be the trunk's password as far as the node can tell, and writing it back could set it
// (docs/service-assumptions.md). The user supplies the password instead.

const MASKED = /^[*•●]+$/;

/** How GET showed a direction's password, when it is not a password in clear. */
function unclear(options: IDataObject): string | undefined {
	const password = options.sip_password;
	if (typeof password === 'string' && MASKED.test(password)) return 'masked';
	if (password === '') return 'empty';
	const hasUser = typeof options.sip_username === 'string' && options.sip_username !== '';
	if ((password === undefined || password === null) && hasUser) return 'missing';
	return undefined;
}

/** Refuses a PATCH body that would write back a password GET did not show in clear; naming field and item. */
export function refuseUnclearPasswords(
	ctx: IExecuteFunctions,
	itemIndex: number,
	intent: SipIntent,
	body: IDataObject,
): void {
	for (const direction of (body.directions ?? []) as IDataObject[]) {
		const change = intent.changes.find((candidate) => candidate.type === direction.type);
		if (change?.sip_password !== undefined) continue;
		const how = unclear((direction.options ?? {}) as IDataObject);
		if (!how) continue;
		const label = direction.type === 'inbound' ? 'Inbound' : 'Outbound';
		throw invalidField(
			ctx,
			itemIndex,
			fieldIn(updateProperties, `directions.${String(direction.type)}.sipPassword`),
			`GET /sip/${intent.phone_number} shows the ${String(direction.type)} password ${how}, so it cannot be kept`,
			`Supply the ${String(direction.type)} password: list the ${label} direction with its SIP Password, or set SIP Login to the SIP Trunk Login credential. The configuration was read; nothing was written.`,
		);
	}
}
