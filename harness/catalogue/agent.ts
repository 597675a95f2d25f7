import { bad, literal, PHONES_LITERAL, PHONES_TYPED, listInvalid } from './shared';
import type { OperationCases } from './types';

/** The two agents Agent Create's example creates, as sent. */
const ONBOARDING = [1, 2].map((n) => ({
	phoneNumber: `+1415555012${n + 2}`,
	agentName: `Onboarding ${n}`,
	task: "Confirm tomorrow's appointments",
	selectedVoice: 'maya',
}));

export const agentCases: Record<string, OperationCases> = {
	create: {
		example: {
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				agentName: '={{ $json.name }}',
				task: "Confirm tomorrow's appointments",
				selectedVoice: 'maya',
			},
			items: [
				{ json: { phone: '+14155550123', name: 'Onboarding 1' } },
				{ json: { phone: '+14155550124', name: 'Onboarding 2' } },
			],
			sends: ONBOARDING.map((json) => ({
				method: 'POST',
				url: '/callback/standardCampaign',
				json,
			})),
			check(result) {
				expect(
					result.items.map((item) => [item.json.agentName, item.json.phoneNumber, item.pairedItem]),
				).toEqual([
					['Onboarding 1', '+14155550123', { item: 0 }],
					['Onboarding 2', '+14155550124', { item: 1 }],
				]);
			},
			holds(state) {
				expect(
					state.agents
						.filter((agent) => agent.agentName.startsWith('Onboarding '))
						.map(({ agentName, phoneNumber, task, selectedVoice }) => ({
							agentName,
							phoneNumber,
							task,
							selectedVoice,
						}))
						.sort((a, b) => a.agentName.localeCompare(b.agentName)),
				).toEqual(ONBOARDING);
			},
		},
		validBase: {
			phoneNumber: '+14155550111',
			agentName: 'Valid',
			task: 'Call',
			selectedVoice: 'maya',
		},
		invalid: [
			...literal('phoneNumber', 'Phone Number', PHONES_LITERAL),
			...bad('phoneNumber', 'Phone Number', PHONES_TYPED),
			...bad('agentName', 'Agent Name', [42, { a: 1 }, '   ', null, ['Reception']]),
			...bad('task', 'Task', [42, [1, 2], '', false]),
			...bad('selectedVoice', 'Voice', [7, '', { voice: 'maya' }]),
			// expressions typed straight into the parameter, resolving to the wrong type
			...literal('agentName', 'Agent Name', ['={{ 42 }}', '={{ { a: 1 } }}']),
		],
		failing: {
			items: [
				{ json: { phone: '+14155550123', name: 'Onboarding 1' } },
				{ json: { phone: '555-0101', name: 'Onboarding 2' } },
			],
			at: 1,
			message: /Phone Number/,
		},
	},
	getAll: {
		example: {
			parameters: { returnAll: false, limit: 1 },
			sends: [{ method: 'GET', url: '/callback/standardCampaign' }],
			check(result) {
				expect(result.items).toEqual([
					{
						json: expect.objectContaining({ id: 'agent_acme_reception', agentName: 'Reception' }),
						pairedItem: { item: 0 },
					},
				]);
			},
		},
		invalid: listInvalid([0, -1, 1.5, 'ten', { a: 1 }, 1_000_001], ['yes', 1]),
		failing: {
			parameters: { limit: '={{ $json.limit }}' },
			items: [{ json: { limit: 1 } }, { json: { limit: 0 } }],
			at: 1,
			message: /Limit/,
		},
	},
};
