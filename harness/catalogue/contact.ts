import { literal, listInvalid, jsonOf } from './shared';
import type { OperationCases } from './types';

export const contactCases: Record<string, OperationCases> = {
	getListNames: {
		example: {
			parameters: { returnAll: false, limit: 2 },
			sends: [{ method: 'GET', url: '/contacts/list-names' }],
			check(result) {
				expect(jsonOf(result)).toEqual([{ name: 'Leads' }, { name: 'Patients' }]);
			},
		},
		invalid: [
			...listInvalid([0, -5, 2.5, [3]], ['maybe', { all: true }]),
			...literal('limit', 'Limit', ['={{ { a: 1 } }}']),
		],
		failing: {
			parameters: { limit: '={{ $json.limit }}' },
			items: [{ json: { limit: 2 } }, { json: { limit: 'two' } }],
			at: 1,
			message: /Limit/,
		},
	},
};
