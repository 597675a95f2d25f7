import { bad, literal, jsonOf } from './shared';
import type { OperationCases } from './types';

export const webhookCases: Record<string, OperationCases> = {
	set: {
		example: {
			parameters: { webhookUrl: 'https://crm.example.com/hook', whenTriggerHolds: 'takeOver' },
			sends: [
				{
					method: 'POST',
					url: '/webhook/insert-webhook',
					json: { webhook: 'https://crm.example.com/hook' },
				},
			],
			check(result) {
				expect(jsonOf(result)).toEqual([{ message: 'Webhook updated' }]);
			},
			holds(state) {
				expect(state.webhook).toBe('https://crm.example.com/hook');
			},
		},
		invalid: [
			...literal('webhookUrl', 'Webhook URL', [
				'ftp://example.com/x',
				'example.com',
				'javascript:alert(1)',
				'http://',
				'mailto:a@example.com',
				'file:///etc/passwd',
				'//example.com/hook',
				'={{ { url: "https://example.com" } }}',
			]),
			...bad('webhookUrl', 'Webhook URL', [
				42,
				{ url: 'https://example.com' },
				'',
				['https://example.com'],
			]),
		],
		failing: {
			parameters: { webhookUrl: '={{ $json.url }}', whenTriggerHolds: 'takeOver' },
			items: [
				{ json: { url: 'ftp://crm.example.com/hook' } },
				{ json: { url: 'https://crm.example.com/hook' } },
			],
			at: 0,
			message: /Webhook URL/,
		},
	},
};
