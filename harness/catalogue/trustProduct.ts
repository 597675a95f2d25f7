import { bad, literal } from './shared';
import type { OperationCases } from './types';

export const trustProductCases: Record<string, OperationCases> = {
	getAll: {
		example: {
			parameters: { carrier: 'twilio', returnAll: true },
			sends: [{ method: 'GET', url: '/agency/twilio/trust-products' }],
			check(result) {
				expect(result.items).toHaveLength(3);
				for (const { json } of result.items)
					expect(json).toMatchObject({
						sid: expect.any(String),
						friendly_name: expect.any(String),
					});
			},
		},
		invalid: [
			...bad('limit', 'Limit', [0, 'lots'], { with: { returnAll: false }, good: 5 }),
			// the carrier is a path segment
			...literal('carrier', 'Carrier', [
				'twilio/../admin',
				'../twilio',
				'a b',
				'twilio?x=1',
				'.hidden',
				'%2e%2e',
				'twilio#frag',
				'={{ ["twilio"] }}',
			]),
			...bad('carrier', 'Carrier', [42, '', { carrier: 'twilio' }, 't'.repeat(513)]),
		],
		failing: {
			parameters: { carrier: '={{ $json.carrier }}' },
			items: [{ json: { carrier: 'twilio' } }, { json: { carrier: 'telnyx' } }],
			at: 1,
			message: /telnyx|carrier/i,
			httpCode: '404',
		},
	},
};
