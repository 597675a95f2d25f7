import type { IDataObject } from 'n8n-workflow';

import { defineOperation } from '../types';
import { invalidField } from '../validation';
import type { CurrentSip, SipIntent } from './configuration';
import {
	GET_SIP,
	buildBody,
	hideSipPasswords,
	needsCurrent,
	planUpdate,
	readSip,
} from './configuration';
import { DIRECTIONS, sipField, sipForm, updateProperties } from './fields';
import { readSipIntent } from './readIntent';

function changesIn(sip: CurrentSip & { readable: true }, body: IDataObject): IDataObject[] {
	const found: IDataObject[] = [];
	const check = (field: string, now: unknown, next: unknown, direction?: string) => {
		const [current, intended] = [now ?? null, next ?? null];
		if (JSON.stringify(now) !== JSON.stringify(next))
			found.push({ field, ...(direction && { direction }), current, intended });
	};
	if (body.trunkName !== undefined) check('trunkName', sip.config.trunkName, body.trunkName);
	for (const type of Array.isArray(body.directions) ? DIRECTIONS : []) {
		const now = sip.directions.find((direction) => direction.type === type);
		const next = (body.directions as IDataObject[]).find((direction) => direction.type === type);
		if (!now && !next) continue;
		check('direction', now ? 'attached' : 'not attached', next ? 'attached' : 'detached', type);
		if (!now || !next) continue;
		for (const key of Object.keys({ ...now, ...next }))
			if (key !== 'type' && key !== 'options') check(key, now[key], next[key], type);
		const [was, will] = [now.options ?? {}, next.options ?? {}] as IDataObject[];
		for (const key of Object.keys({ ...was, ...will }))
			check(`options.${key}`, was[key], will[key], type);
	}
	return found;
}

const NO_CHANGE_KNOWN = { wouldSend: null, differences: null };

// Update's dry run: "in sync" or "drift" only for a body Update would send. An unreadable answer is
// "could not read" and a body Update would refuse "would refuse", never "in sync": an audit must
// not take either as clean.
export const compare = defineOperation<SipIntent>({
	name: 'Compare',
	summary: 'Dry run of Update: the body it would send and what it would change, writing nothing',
	action: 'Compare a SIP configuration with wanted settings',
	changesData: false,
	requests: [GET_SIP],
	...sipForm(updateProperties),
	validate: readSipIntent,
	failureIn([{ status, reason, phone_number }]) {
		if (status !== 'could not read' && status !== 'would refuse') return undefined;
		const description = `SIP Compare of ${String(phone_number)}: status "${String(status)}". With "Continue (regular output)" this is an item with that status.`;
		return { message: String(reason), description };
	},
	async execute(intent, api, itemIndex) {
		const { phone_number, showPasswords } = intent;
		const current = await readSip(api, phone_number);
		if (current.readable) {
			const plan = planUpdate(intent, current.directions);
			if (plan.refusal) {
				// The error SIP Update would fail this item with, told as this comparison's outcome.
				const { type, problem, hint } = plan.refusal;
				const field = sipField(`directions.${type}.sipPassword`);
				const { message } = invalidField(this, itemIndex, field, problem, hint);
				const reason = `SIP Update would refuse, writing nothing: ${message}`;
				const record = { phone_number, status: 'would refuse', reason, hint, ...NO_CHANGE_KNOWN };
				return [hideSipPasswords({ ...record, current: current.config }, showPasswords)];
			}
			const differences = changesIn(current, plan.body);
			const status = differences.length ? 'drift' : 'in sync';
			const record = { phone_number, status, wouldSend: plan.body, differences };
			return [hideSipPasswords({ ...record, current: current.config }, showPasswords)];
		}
		const wouldSend = needsCurrent(intent) ? null : buildBody(intent);
		const then = wouldSend ? 'send wouldSend (changes unknown)' : 'refuse, writing nothing';
		const reason = `The current SIP configuration could not be read: ${current.reason}. SIP Update would ${then}.`;
		const record = { phone_number, status: 'could not read', reason, wouldSend };
		return [hideSipPasswords({ ...record, differences: null, current: null }, showPasswords)];
	},
});
