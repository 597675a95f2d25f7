import type { INodeProperties } from 'n8n-workflow';

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'The service keeps one webhook URL per account. Activating this workflow points it here. "Listen for test event" points it at the test URL and, when the test ends, back at this workflow\'s production URL (see After Test Listen). Treat the registered URL as a secret, like the API key: it carries the token that proves a delivery is genuine.',
		name: 'accountWebhookNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'variables',
		options: [
			{
				name: 'Raw Delivery',
				value: 'raw',
				description: 'The delivery body exactly as the service sent it',
			},
			{
				name: 'Variables and Metadata',
				value: 'variables',
				description: 'The extracted variables as fields, plus a _voiceAi object with conversation ID, source, agent, chatbot and times',
			},
		],
	},
	{
		displayName: 'After Test Listen',
		name: 'afterTestListen',
		type: 'options',
		default: 'restoreProduction',
		description: 'What the account webhook points at when "Listen for test event" ends',
		options: [
			{
				name: 'Leave Account Webhook As Is',
				value: 'leave',
				description: 'It keeps pointing at the test URL, which no longer answers',
			},
			{
				name: 'Restore Production URL',
				value: 'restoreProduction',
				description: "Point it back at this workflow's production URL (n8n does not tell a test listener whether the workflow is active, so this happens either way)",
			},
		],
	},
	{
		displayName: 'On Deactivation',
		name: 'onDeactivation',
		type: 'options',
		default: 'leave',
		description: 'The service has no way to delete the account webhook: choose what it points at after this workflow is deactivated',
		options: [
			{
				name: 'Leave Account Webhook As Is',
				value: 'leave',
				description: "It keeps pointing at this workflow's production URL, which answers 404 while the workflow is inactive",
			},
			{
				name: 'Point to a URL I Give',
				value: 'replacementUrl',
				description: 'Register the URL below instead',
			},
		],
	},
	{
		displayName: 'Replacement Webhook URL',
		name: 'replacementUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/voice-ai-deliveries',
		description: 'Registered as the account webhook when this workflow is deactivated',
		displayOptions: { show: { onDeactivation: ['replacementUrl'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Deduplicate By Field',
				name: 'dedupeField',
				type: 'string',
				default: 'conversation_id',
				description: 'Field of the delivery (dotted path, e.g. variables.call_id) that identifies a conversation. A second delivery with the same value within the window is answered 200 and starts nothing. Empty: no deduplication.',
			},
			{
				displayName: 'Deduplication Window (Minutes)',
				name: 'dedupeWindowMinutes',
				type: 'number',
				default: 60,
				typeOptions: { minValue: 0 },
				description: 'How long a conversation ID is remembered. 0 turns deduplication off.',
			},
			{
				// Named agentIds as before: workflows saved when this was a plain comma-separated string still read.
				displayName: 'Only Agent',
				name: 'agentIds',
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
				description: 'Start only for deliveries from this agent. By ID also takes several IDs, comma-separated. With chatbot IDs too, a delivery matching either starts the workflow.',
				modes: [
					{
						displayName: 'From List',
						name: 'list',
						type: 'list',
						placeholder: 'Select an agent...',
						typeOptions: { searchListMethod: 'searchAgents', searchable: true },
					},
					{
						displayName: 'By ID',
						name: 'id',
						type: 'string',
						placeholder: 'agent_123, agent_456',
					},
				],
			},
			{
				displayName: 'Only Chatbot IDs',
				name: 'chatbotIds',
				type: 'string',
				default: '',
				placeholder: 'cb_support, cb_booking',
				description: 'Start only for deliveries from these chatbots (comma-separated). With agent IDs too, a delivery matching either list starts the workflow.',
			},
		],
	},
];
