import { defineOperation } from '../types';
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
import { sipForm } from './readIntent';

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
	...sipForm('compare'),
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
