import { SIP_DIRECTION } from '../parameters';

import { bad, literal, PHONES_LITERAL, jsonOf } from './shared';
import type { FailingItem, InvalidInput, OperationCases, SandboxState } from './types';

const ENDPOINTS = [
	'pbx.example.com',
	'sip:alice@pbx.example.com',
	'sip:pbx.example.com:5060',
	'sips:pbx.example.com',
	'sip:',
	'sip:-pbx.example.com',
	'sip:pbx.example.com;transport=tcp',
	'sip:1.2.3',
	'sip:999.1.2.3',
	'sip:10.0.0.0.1',
	'http://pbx.example.com',
];
/** SIP Update and Compare read the same fields, and start their invalid cases from the same base. */
const sipIntentInvalid: InvalidInput[] = [
	...literal('directions.inbound.sipEndpoint', 'Inbound SIP Endpoint', ENDPOINTS),
	...bad('directions.outbound.sipEndpoint', 'Outbound SIP Endpoint', [42, '', null], {
		good: 'sip:10.0.0.5',
	}),
	...bad('directions.inbound.port', 'Inbound Port', [0, 65536, 1.5, 'abc', -1, { port: 1 }]),
	// Any transport name is passed through (the spec shows udp only); a value that is not text is refused.
	...bad('directions.inbound.transport', 'Inbound Transport', [1, { name: 'udp' }, ['udp']]),
	...bad('directions.inbound.secureMedia', 'Inbound Secure Media', ['maybe', 1]),
	...bad('directions.inbound.sipUsername', 'Inbound SIP Username', [1234, { user: 'x' }], {
		good: 'acme',
	}),
	...[
		{ bad: 424242, notShown: '424242' },
		{ bad: { secret: 'hunter2-canary' }, notShown: 'hunter2-canary' },
	].map(
		(value): InvalidInput => ({
			path: 'directions.inbound.sipPassword',
			label: 'Inbound SIP Password',
			good: 's3cret',
			...value,
		}),
	),
	...literal('additionalFields.uuid_config_id', 'Config ID', [
		'abc',
		'6f1c2a8e-0000-4000-8000-00000000000',
		'6f1c2a8e00004000800000000000000g',
		'{6f1c2a8e-0000-4000-8000-000000000000}',
	]),
	...bad('additionalFields.uuid_config_id', 'Config ID', [12345], {
		good: '6f1c2a8e-0000-4000-8000-000000000000',
	}),
	...bad('trunkName', 'Trunk Name', [99, ['main']], { good: 'acme-main' }),
	{ path: 'directions', bad: {}, label: 'Directions', literal: true },
	...literal('unlistedDirections', 'Directions Not Listed', ['drop']),
	...literal('directions.inbound.port', 'Inbound Port', [
		'={{ "5060x" }}',
		'={{ [5060] }}',
		'0x13C4',
		'0b1010',
		'1e3',
		'={{ "0x13C4" }}',
	]),
];

/** What SIP Update's example sends: the inbound direction it sets, and the outbound one it keeps. */
const SIP_UPDATE_BODY = {
	phone_number: '+14155550102',
	trunkName: 'acme-recall-2',
	directions: [
		{
			type: 'inbound',
			sip_endpoint: 'sip:pbx2.acme-dental.example',
			options: {
				port: 5062,
				transport: 'udp',
				secure_media: true,
				sip_username: 'acme',
				sip_password: 's3cret',
			},
		},
		{
			type: 'outbound',
			sip_endpoint: 'sip:pbx.acme-dental.example',
			options: {
				port: 5060,
				transport: 'tcp',
				secure_media: true,
				sip_username: 'acme-recall',
				sip_password: 'acme-recall-secret-outbound',
			},
		},
	],
};

const sipValidBase = { phoneNumber: '+14155550101', directions: { inbound: SIP_DIRECTION } };

const sipOf = (state: SandboxState, phoneNumber: string) =>
	state.sip.find((sip) => sip.phone_number === phoneNumber);

/** Only a 2xx is a success: the number the organization does not have (+14155550199) fails, named. */
const unknownNumberFails = (...phones: string[]): FailingItem => ({
	parameters: { phoneNumber: '={{ $json.phone }}' },
	items: phones.map((phone) => ({ json: { phone } })),
	at: phones.indexOf('+14155550199'),
	message: /\+14155550199/,
	httpCode: '404',
});

export const sipCases: Record<string, OperationCases> = {
	compare: {
		example: {
			parameters: {
				phoneNumber: '+14155550103',
				directions: { outbound: { sipEndpoint: 'sip:pbx.acme-dental.example', port: 5060 } },
			},
			sends: [{ method: 'GET', url: '/sip/%2B14155550103' }],
			check(result) {
				expect(jsonOf(result)).toEqual([
					expect.objectContaining({
						phone_number: '+14155550103',
						status: 'drift',
						differences: [
							{ field: 'options.port', direction: 'outbound', current: 5080, intended: 5060 },
						],
					}),
				]);
			},
		},
		validBase: sipValidBase,
		invalid: [
			...literal('phoneNumber', 'Phone Number', PHONES_LITERAL.slice(4)),
			...bad('phoneNumber', 'Phone Number', [{ phone: '+1' }, '']),
			...sipIntentInvalid,
		],
		failing: unknownNumberFails('+14155550103', '+14155550199'),
	},
	detach: {
		example: {
			parameters: { phoneNumber: '+14155550101', directions: ['outbound'] },
			sends: [
				{
					method: 'POST',
					url: '/sip/detach2',
					json: { phone_number: '+14155550101', directions: [{ type: 'outbound' }] },
				},
			],
			check(result) {
				expect(jsonOf(result)).toEqual([
					expect.objectContaining({ phone_number: '+14155550101', detached: ['outbound'] }),
				]);
			},
			holds(state) {
				expect(sipOf(state, '+14155550101')?.directions.map((direction) => direction.type)).toEqual(
					['inbound'],
				);
			},
		},
		invalid: [
			...literal('phoneNumber', 'Phone Number', ['555-0101', '={{ 14155550101 }}']),
			...bad('phoneNumber', 'Phone Number', [42]),
			...bad('directions', 'Directions', [
				['sideways'],
				[],
				'up',
				42,
				{ type: 'inbound' },
				['inbound', 'Outbound'],
			]),
			...bad('notFoundAsDetached', 'Not Found Counts as Detached', ['yes', 1, null], {
				good: false,
			}),
		],
		failing: unknownNumberFails('+14155550101', '+14155550199'),
	},
	get: {
		example: {
			parameters: { phoneNumber: '+14155550101' },
			sends: [{ method: 'GET', url: '/sip/%2B14155550101' }],
			check(result) {
				expect(result.items).toHaveLength(1);
				expect(result.items[0].json).toMatchObject({
					phone_number: '+14155550101',
					trunkName: 'acme-main',
					directions: [
						{ type: 'inbound', options: { sip_password: '(set, hidden)' } },
						{ type: 'outbound', options: { sip_password: '(set, hidden)' } },
					],
				});
			},
		},
		invalid: [
			...literal('phoneNumber', 'Phone Number', PHONES_LITERAL.slice(0, 4)),
			...bad('phoneNumber', 'Phone Number', [14155550101, null, { phone: '+1' }]),
		],
		failing: unknownNumberFails('+14155550199', '+14155550101'),
	},
	update: {
		example: {
			parameters: {
				phoneNumber: '+14155550102',
				trunkName: 'acme-recall-2',
				directions: {
					inbound: {
						sipEndpoint: 'sip:pbx2.acme-dental.example',
						port: 5062,
						transport: 'udp',
						secureMedia: 'on',
						sipUsername: 'acme',
						sipPassword: 's3cret',
					},
				},
			},
			// "Directions Not Listed: Keep" (the default): the current outbound direction is read and sent along.
			sends: [
				{ method: 'GET', url: '/sip/%2B14155550102' },
				{
					method: 'PATCH',
					url: '/sip/sip2',
					json: SIP_UPDATE_BODY,
				},
			],
			check(result) {
				expect(result.items).toHaveLength(1);
				expect(result.items[0].json).toMatchObject({
					phone_number: '+14155550102',
					sip: {
						trunkName: 'acme-recall-2',
						directions: expect.arrayContaining([
							expect.objectContaining({
								type: 'inbound',
								options: expect.objectContaining({ sip_password: '(set, hidden)' }),
							}),
						]),
					},
				});
				expect(JSON.stringify(result.items)).not.toContain('s3cret');
			},
			holds(state) {
				const { phone_number, ...written } = SIP_UPDATE_BODY;
				expect(sipOf(state, phone_number)).toMatchObject(written);
			},
		},
		validBase: sipValidBase,
		invalid: sipIntentInvalid,
		failing: unknownNumberFails('+14155550102', '+14155550199'),
	},
};
