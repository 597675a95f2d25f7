/** The pure parts of SIP Update and Compare: reading GET's answer, building the body, hiding passwords. */
import type { IDataObject } from 'n8n-workflow';

import type { SipIntent } from '../../nodes/VoiceAi/actions/sip/configuration';
import {
	buildBody,
	hideSipPasswords,
	needsCurrent,
	readCurrentSip,
} from '../../nodes/VoiceAi/actions/sip/configuration';

const inbound = {
	type: 'inbound',
	sip_endpoint: 'sip:a.example',
	options: {
		port: 5080,
		transport: 'tls',
		secure_media: false,
		sip_username: 'u',
		sip_password: 'p-in',
		extra: 1,
	},
};
const outbound = {
	type: 'outbound',
	sip_endpoint: 'sip:b.example',
	options: {
		port: 5060,
		transport: 'udp',
		secure_media: true,
		sip_username: 'v',
		sip_password: 'p-out',
	},
	note: 'kept',
};

describe('readCurrentSip', () => {
	it.each([
		['an object with directions', { phone_number: '+1', directions: [inbound, outbound] }],
		['the same under data', { data: { phone_number: '+1', directions: [inbound] } }],
		['no direction at all', { directions: [] }],
	])('reads %s', (_name, answer) => {
		expect(readCurrentSip(answer)).toMatchObject({ readable: true });
	});

	it.each([
		['a bare list of directions', [inbound, outbound], /a list/],
		['text', 'SIP configuration of +1', /text/],
		['an object named otherwise', { sip: { directions: [inbound] } }, /an object with sip/],
		['an empty object', {}, /an empty object/],
		['null', null, /empty/],
		['a direction of another type', { directions: [{ ...inbound, type: 'both' }] }, /direction 0/],
		['the same direction twice', { directions: [inbound, inbound] }, /listed twice/],
		[
			'options that are not an object',
			{ directions: [{ ...inbound, options: 'udp' }] },
			/options of the inbound/,
		],
		[
			'two directions lists',
			{ directions: [inbound], data: { directions: [] } },
			/two directions lists/,
		],
	])('refuses %s', (_name, answer, reason) => {
		const current = readCurrentSip(answer);
		expect(current.readable).toBe(false);
		expect(current.readable === false && current.reason).toMatch(reason);
	});
});

describe('buildBody', () => {
	const intent = (change: Partial<SipIntent>): SipIntent => ({
		phone_number: '+14155550101',
		changes: [],
		unlisted: 'keep',
		showPasswords: false,
		...change,
	});

	it('keeps every field GET returned, in the listed direction and in the one not listed', () => {
		const body = buildBody(
			intent({ changes: [{ type: 'inbound', sip_endpoint: 'sip:c.example', port: 5090 }] }),
			[inbound, outbound] as IDataObject[],
		);
		expect(body.directions).toEqual([
			{ ...inbound, sip_endpoint: 'sip:c.example', options: { ...inbound.options, port: 5090 } },
			outbound,
		]);
	});

	it('leaves out the direction not listed with "Detach", and reads nothing when every field is given', () => {
		const full = {
			type: 'outbound' as const,
			sip_endpoint: 'sip:c.example',
			port: 1,
			transport: 'x',
			secure_media: true,
			sip_username: 'a',
			sip_password: 'b',
		};
		const detach = intent({ unlisted: 'detach', changes: [full] });
		expect(needsCurrent(detach)).toBe(false);
		expect(buildBody(detach).directions).toEqual([
			{
				type: 'outbound',
				sip_endpoint: 'sip:c.example',
				options: {
					port: 1,
					transport: 'x',
					secure_media: true,
					sip_username: 'a',
					sip_password: 'b',
				},
			},
		]);
		expect(needsCurrent(intent({ changes: [full] }))).toBe(true);
		expect(
			needsCurrent(intent({ unlisted: 'detach', changes: [{ ...full, sip_password: undefined }] })),
		).toBe(true);
	});
});

describe('hideSipPasswords', () => {
	it('hides set sip_password fields and password differences, keeps empty ones, and changes nothing else', () => {
		const record = {
			message: 'password p-in-long refused',
			transport: 'udp',
			directions: [
				{ sip_endpoint: 'sip:udp.example', options: { transport: 'udp', sip_password: 'udp' } },
				{ options: { sip_password: '' } },
				{ options: { sip_password: null } },
			],
			differences: [
				{ field: 'options.sip_password', direction: 'inbound', current: 'udp', intended: 'p' },
				{ field: 'options.transport', direction: 'inbound', current: 'udp', intended: 'p' },
				{ field: 'options.sip_password', direction: 'outbound', current: null, intended: 'p' },
			],
		};
		expect(hideSipPasswords(structuredClone(record), false)).toEqual({
			message: 'password p-in-long refused',
			transport: 'udp',
			directions: [
				{
					sip_endpoint: 'sip:udp.example',
					options: { transport: 'udp', sip_password: '(set, hidden)' },
				},
				{ options: { sip_password: '' } },
				{ options: { sip_password: null } },
			],
			differences: [
				{
					field: 'options.sip_password',
					direction: 'inbound',
					current: '(set, hidden)',
					intended: '(set, hidden)',
				},
				{ field: 'options.transport', direction: 'inbound', current: 'udp', intended: 'p' },
				{
					field: 'options.sip_password',
					direction: 'outbound',
					current: null,
					intended: '(set, hidden)',
				},
			],
		});
		expect(hideSipPasswords(record, true)).toBe(record);
	});

	it('has no depth limit and keeps a __proto__ key as data', () => {
		const record = JSON.parse('{"__proto__":{"sip_password":"x"},"list":[]}') as IDataObject;
		let deep: IDataObject = { sip_password: 'deep-secret' };
		for (let level = 0; level < 500; level++) deep = { next: deep };
		record.deep = deep;
		hideSipPasswords(record, false);
		expect(JSON.stringify(record)).not.toContain('deep-secret');
		expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
		expect(JSON.stringify(record).startsWith('{"__proto__":{"sip_password":"(set, hidden)"}')).toBe(
			true,
		);
	});
});
