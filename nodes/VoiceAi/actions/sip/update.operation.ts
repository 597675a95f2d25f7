import { NodeOperationError } from 'n8n-workflow';

import { defineOperation, request, send, toRecords } from '../types';
import { invalidField } from '../validation';
import type { SipIntent } from './configuration';
import { GET_SIP, hideSipPasswords, needsCurrent, planUpdate, readSip } from './configuration';
import { sipField, sipForm, updateProperties } from './fields';
import { readSipIntent } from './readIntent';

const PATCH_SIP = request('PATCH', '/sip/sip2');

export const update = defineOperation<SipIntent>({
	name: 'Update',
	summary:
		'Rename the trunk and/or attach or change its directions; the service runs the needed carrier operations',
	action: 'Update a SIP configuration',
	changesData: 'changes data',
	requests: [{ ...GET_SIP, when: 'when a field or direction is kept' }, PATCH_SIP],
	...sipForm(updateProperties),
	validate: readSipIntent,
	recordKeyOf: ({ phone_number }) => phone_number,
	async execute(intent, api, itemIndex) {
		const { phone_number } = intent;
		const current = needsCurrent(intent) ? await readSip(api, phone_number) : undefined;
		if (current && !current.readable) {
			const message = `SIP Update of ${phone_number} wrote nothing: the current SIP configuration could not be read (${current.reason})`;
			const description =
				'"Directions Not Listed: Keep" and direction fields left empty need the current configuration, and this answer of GET /sip does not show it in a form the node can read without guessing. To write anyway, list both directions with every field, or choose "Directions Not Listed: Detach" and fill every field of the listed directions.';
			throw new NodeOperationError(this.getNode(), message, { itemIndex, description });
		}
		const plan = planUpdate(intent, current?.directions);
		if (plan.refusal) {
			const { type, problem, hint } = plan.refusal;
			const field = sipField(`directions.${type}.sipPassword`);
			throw invalidField(this, itemIndex, field, problem, hint);
		}
		const { body } = plan;
		return hideSipPasswords(toRecords(await send(api, PATCH_SIP, { body })), intent.showPasswords);
	},
});
