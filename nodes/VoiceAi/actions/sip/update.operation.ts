import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { defineOperation, request, send, toRecords } from '../types';
import { invalidField } from '../validation';
import type { SipIntent } from './configuration';
import { GET_SIP, buildBody, hideSipPasswords, needsCurrent, readSip } from './configuration';
import { sipField, sipForm, updateProperties } from './fields';
import { readSipIntent } from './readIntent';

const PATCH_SIP = request('PATCH', '/sip/sip2');

/** How GET showed a kept password that is not one in clear, or undefined. */
function unclear({ sip_password: password, sip_username: user }: IDataObject = {}) {
	if (password === '') return 'empty';
	if (password === undefined || password === null) return user ? 'missing' : undefined;
	return typeof password === 'string' && /^[*•●]+$/.test(password) ? 'masked' : undefined;
}

export const update = defineOperation<SipIntent>({
	name: 'Update',
	hint: 'Rename the trunk and/or attach or change its directions; the service runs the needed carrier operations',
	action: 'Update a SIP configuration',
	changesData: 'changes data',
	requests: [{ ...GET_SIP, when: 'when a field or direction is kept' }, PATCH_SIP],
	...sipForm(updateProperties),
	validate: readSipIntent,
	recordOf: ({ phone_number }) => phone_number,
	async execute(intent, api, itemIndex) {
		const { phone_number, changes } = intent;
		const current = needsCurrent(intent) ? await readSip(api, phone_number) : undefined;
		if (current && !current.readable) {
			const message = `SIP Update of ${phone_number} wrote nothing: the current SIP configuration could not be read (${current.reason})`;
			const description =
				'"Directions Not Listed: Keep" and direction fields left empty need the current configuration, and this answer of GET /sip does not show it in a form the node can read without guessing. To write anyway, list both directions with every field, or choose "Directions Not Listed: Detach" and fill every field of the listed directions.';
			throw new NodeOperationError(this.getNode(), message, { itemIndex, description });
		}
		const body = buildBody(intent, current?.directions);
		// A kept password that GET did not show in clear may not be the trunk's: never write it back.
		for (const direction of (body.directions ?? []) as IDataObject[]) {
			const type = String(direction.type);
			const supplied = changes.find((change) => change.type === type)?.sip_password;
			const how = supplied === undefined && unclear(direction.options as IDataObject | undefined);
			if (!how) continue;
			throw invalidField(
				this,
				itemIndex,
				sipField(`directions.${type}.sipPassword`),
				`GET /sip/${phone_number} shows the ${type} password ${how}, so it cannot be kept`,
				`Supply the ${type} password: list the ${type} direction with its SIP Password, or set SIP Login to the SIP Trunk Login credential. The configuration was read; nothing was written.`,
			);
		}
		return hideSipPasswords(toRecords(await send(api, PATCH_SIP, { body })), intent.showPasswords);
	},
});
