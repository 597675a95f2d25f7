import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { defineOperation, request, send, toRecords } from '../types';
import { fieldIn, invalidField } from '../validation';
import type { SipIntent } from './configuration';
import {
	GET_SIP,
	buildBody,
	differences,
	fetchSip,
	hideSipPasswords,
	needsCurrent,
	readCurrentSip,
} from './configuration';
import { updateProperties } from './fields';
import { readSipIntent } from './readIntent';

const PATCH_SIP = request('PATCH', '/sip/sip2');

/** How GET showed a kept password that is not one in clear, or undefined. */
function unclear({ sip_password: password, sip_username: user }: IDataObject): string | undefined {
	if (typeof password === 'string' && /^[*•●]+$/.test(password)) return 'masked';
	if (password === '') return 'empty';
	if ((password === undefined || password === null) && typeof user === 'string' && user !== '')
		return 'missing';
	return undefined;
}

/** What Update and Compare share: the form and how an item is read. */
const form = (operation: string) => ({
	description: updateDisplayOptions(
		{ show: { resource: ['sip'], operation: [operation] } },
		updateProperties,
	),
	// The service compares the wanted state with the current one: sending it twice changes nothing more.
	repeatable: true as const,
	target: ({ phone_number }: SipIntent) => `The SIP configuration of ${phone_number}`,
	validate: readSipIntent,
});

export const update = defineOperation<SipIntent>({
	name: 'Update',
	hint: 'Rename the trunk and/or attach or change its directions; the service runs the needed carrier operations',
	action: 'Update a SIP configuration',
	changesData: 'changes data',
	requests: [{ ...GET_SIP, when: 'when a field or direction is kept' }, PATCH_SIP],
	...form('update'),
	recordOf: ({ phone_number }) => phone_number,
	async execute(intent, api, itemIndex) {
		let current: IDataObject[] | undefined;
		if (needsCurrent(intent)) {
			const read = readCurrentSip(await fetchSip(api, intent.phone_number));
			if (!read.readable) {
				throw new NodeOperationError(
					this.getNode(),
					`SIP Update of ${intent.phone_number} wrote nothing: the current SIP configuration could not be read (${read.reason})`,
					{
						itemIndex,
						description:
							'"Directions Not Listed: Keep" and direction fields left empty need the current configuration, and this answer of GET /sip does not show it in a form the node can read without guessing. To write anyway, list both directions with every field, or choose "Directions Not Listed: Detach" and fill every field of the listed directions.',
					},
				);
			}
			current = read.directions;
		}
		const body = buildBody(intent, current);
		// Whether GET shows SIP passwords in clear is not in the spec: a kept password that is masked,
		// empty, or missing beside a user name may not be the trunk's, and writing it could set it
		// (docs/service-assumptions.md). The user supplies it instead.
		for (const { type, options } of (body.directions ?? []) as IDataObject[]) {
			const supplied = intent.changes.find((change) => change.type === type)?.sip_password;
			const how = supplied === undefined && unclear((options ?? {}) as IDataObject);
			if (!how) continue;
			const label = type === 'inbound' ? 'Inbound' : 'Outbound';
			throw invalidField(
				this,
				itemIndex,
				fieldIn(updateProperties, `directions.${String(type)}.sipPassword`),
				`GET /sip/${intent.phone_number} shows the ${String(type)} password ${how}, so it cannot be kept`,
				`Supply the ${String(type)} password: list the ${label} direction with its SIP Password, or set SIP Login to the SIP Trunk Login credential. The configuration was read; nothing was written.`,
			);
		}
		return hideSipPasswords(toRecords(await send(api, PATCH_SIP, { body })), intent.showPasswords);
	},
});

/**
 * SIP Update's dry run: writes nothing. An answer the node cannot read gives status "could not read",
 * never "in sync", so a scheduled audit cannot mistake it for a clean result.
 */
export const compare = defineOperation<SipIntent>({
	name: 'Compare',
	hint: 'Dry run of Update: the body it would send and what it would change, writing nothing',
	action: 'Compare a SIP configuration with wanted settings',
	changesData: false,
	requests: [GET_SIP],
	...form('compare'),
	failureIn(records) {
		const unreadable = records.find((record) => record.status === 'could not read');
		if (!unreadable) return undefined;
		return {
			message: String(unreadable.reason),
			description: `SIP Compare of ${String(unreadable.phone_number)}: status "could not read". With "Continue (regular output)" this is an item with that status.`,
		};
	},
	async execute(intent, api) {
		const { phone_number, showPasswords } = intent;
		const current = readCurrentSip(await fetchSip(api, phone_number));
		if (current.readable) {
			const wouldSend = buildBody(intent, current.directions);
			const found = differences(current, wouldSend);
			const status = found.length ? 'drift' : 'in sync';
			const record = {
				phone_number,
				status,
				wouldSend,
				differences: found,
				current: current.config,
			};
			return [hideSipPasswords(record, showPasswords)];
		}
		const refused = needsCurrent(intent);
		const reason = `The current SIP configuration could not be read: ${current.reason}. ${
			refused
				? 'SIP Update would refuse and write nothing.'
				: 'SIP Update would send wouldSend; what it changes is unknown.'
		}`;
		const wouldSend = refused ? null : buildBody(intent);
		const record = { phone_number, status: 'could not read', reason, wouldSend };
		return [hideSipPasswords({ ...record, differences: null, current: null }, showPasswords)];
	},
});
