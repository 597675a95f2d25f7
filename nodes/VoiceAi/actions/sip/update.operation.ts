import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { defineOperation, request, send, toRecords } from '../types';
import type { SipIntent } from './configuration';
import {
	GET_SIP,
	buildBody,
	fetchSip,
	hideSipPasswords,
	needsCurrent,
	readCurrentSip,
} from './configuration';
import { updateProperties } from './fields';
import { refuseUnclearPasswords } from './keptPasswords';
import { readSipIntent } from './readIntent';

const PATCH_SIP = request('PATCH', '/sip/sip2');

export const update = defineOperation<SipIntent>({
	name: 'Update',
	hint: 'Rename the trunk and/or attach or change its directions; the service runs the needed carrier operations',
	action: 'Update a SIP configuration',
	changesData: 'changes data',
	requests: [{ ...GET_SIP, when: 'when a field or direction is kept' }, PATCH_SIP],
	description: updateDisplayOptions(
		{ show: { resource: ['sip'], operation: ['update'] } },
		updateProperties,
	),
	// The service compares the wanted state with the current one: sending it twice changes nothing more.
	repeatable: true,
	target: ({ phone_number }) => `The SIP configuration of ${phone_number}`,
	recordOf: ({ phone_number }) => phone_number,
	validate: readSipIntent,
	async execute(intent, api, itemIndex) {
		let currentDirections: IDataObject[] | undefined;
		if (needsCurrent(intent)) {
			const current = readCurrentSip(await fetchSip(api, intent.phone_number));
			if (!current.readable) {
				throw new NodeOperationError(
					this.getNode(),
					`SIP Update of ${intent.phone_number} wrote nothing: the current SIP configuration could not be read (${current.reason})`,
					{
						itemIndex,
						description:
							'"Directions Not Listed: Keep" and direction fields left empty need the current configuration, and this answer of GET /sip does not show it in a form the node can read without guessing. To write anyway, list both directions with every field, or choose "Directions Not Listed: Detach" and fill every field of the listed directions.',
					},
				);
			}
			currentDirections = current.directions;
		}
		const body = buildBody(intent, currentDirections);
		refuseUnclearPasswords(this, itemIndex, intent, body);
		const answer = await send(api, PATCH_SIP, { body });
		return hideSipPasswords(toRecords(answer), intent.showPasswords);
	},
});
