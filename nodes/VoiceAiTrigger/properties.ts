import type { INodeParameters, INodeProperties } from 'n8n-workflow';

export const DEFAULT_DEDUPE_WINDOW_MINUTES = 60;
export const DEFAULT_DEDUPE_FIELD = 'conversation_id';

// A chatbot's own webhook_url points here (docs/trigger.md): nothing registered, no ownership.
export const RECEIVE_FROM_CHATBOT = 'chatbotWebhookUrl';
const accountWay = { hide: { receiveFrom: [RECEIVE_FROM_CHATBOT] } };

export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Receive From',
		name: 'receiveFrom',
		type: 'options',
		default: 'accountWebhook',
		options: [
			{
				name: "A Chatbot's Own Webhook URL (Nothing Registered)",
				value: RECEIVE_FROM_CHATBOT,
				description: "Only chatbots whose webhook_url you set to this workflow's address",
			},
			{
				name: 'The Account Webhook (Registered on Publish)',
				value: 'accountWebhook',
				description: 'Every conversation the account completes',
			},
		],
	},
	{
		displayName:
			'Publish, then Listen for test event: paste the address under Show Details into the chatbot\'s Webhook URL in the dashboard. <a href="https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/trigger.md" target="_blank">Details</a>',
		name: 'chatbotWebhookNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { receiveFrom: [RECEIVE_FROM_CHATBOT] } },
	},
	{
		// At most three lines in the panel; the rules are in the linked page.
		displayName:
			'The account has one webhook: publishing points it here. On a freshly started n8n, if no other workflow uses this account, set If Nobody Can Tell Who Holds It to Go Ahead. <a href="https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/trigger-ownership.md" target="_blank">Details</a>',
		name: 'accountWebhookNotice',
		type: 'notice',
		default: '',
		displayOptions: accountWay,
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'variables',
		options: [
			{ name: 'Raw Delivery', value: 'raw', description: 'The delivery body as sent' },
			{
				name: 'Variables and Metadata',
				value: 'variables',
				description:
					'The variables as fields, _voiceAi (conversation ID, source, agent, chatbot, times) and conversation (the other fields as sent)',
			},
		],
	},
	{
		displayName: 'Answer the Service',
		// The values are n8n's webhook response modes: the description's responseMode is this option.
		name: 'respondWhen',
		type: 'options',
		default: 'onReceived',
		options: [
			{
				name: 'When Received',
				value: 'onReceived',
				description:
					'Answer 200 once the delivery is checked; a run that fails or is lost later is not delivered again',
			},
			{
				name: 'When the Workflow Has Finished',
				value: 'lastNode',
				description:
					'Answer 200 only after the run succeeded, so a failed or lost run is sent again. Turns off the in-memory duplicate check (use Voice AI > Conversation > Pass Once).',
			},
		],
	},
	{
		displayName: 'If Another Workflow Holds It',
		name: 'whenHeld',
		type: 'options',
		displayOptions: accountWay,
		default: 'fail',
		description: 'Held by another published workflow, whatever key or credential it uses',
		options: [
			{
				name: 'Fail to Publish',
				value: 'fail',
				description: 'The message names the workflow that holds the account',
			},
			{
				name: 'Take Over the Account Webhook',
				value: 'takeOver',
				description: 'Unpublishing this workflow gives the account back to the other one',
			},
		],
	},
	{
		displayName: 'If Nobody Can Tell Who Holds It',
		name: 'whenOwnerUnknown',
		type: 'options',
		displayOptions: accountWay,
		default: 'refuse',
		description:
			"On a fresh or restarted n8n, until a workflow of this account publishes or receives, n8n cannot tell whether another workflow receives this account's conversations",
		options: [
			{
				name: 'Go Ahead',
				value: 'listen',
				description:
					'When no other workflow uses this account: publishing takes it; a test listen borrows it, then gives it back to this workflow if published',
			},
			{
				name: 'Refuse',
				value: 'refuse',
				description:
					'Publishing or the test listen fails, naming this option, and cuts no workflow off',
			},
		],
	},
	{
		displayName: 'On Unpublish',
		name: 'onDeactivation',
		type: 'options',
		displayOptions: accountWay,
		default: 'leave',
		description:
			'What the account webhook (the service cannot delete it) points at once no published workflow wants it',
		options: [
			{
				name: 'Leave Account Webhook As Is',
				value: 'leave',
				description: "Keeps pointing at this workflow's production URL (404 while unpublished)",
			},
			{ name: 'Point to a URL I Give', value: 'replacementUrl' },
		],
	},
	{
		displayName: 'Replacement Webhook URL',
		name: 'replacementUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/voice-ai-deliveries',
		displayOptions: { ...accountWay, show: { onDeactivation: ['replacementUrl'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Allow a Local Webhook URL',
				name: 'allowLocalUrl',
				type: 'boolean',
				default: false,
				description:
					"Whether to publish and listen with a local n8n webhook URL (localhost, a private address, .local, a name without a dot) and a base URL that is not: only when the service runs on n8n's network",
			},
			{
				displayName: 'Dedupe Window (Minutes)',
				name: 'dedupeWindowMinutes',
				type: 'number',
				default: DEFAULT_DEDUPE_WINDOW_MINUTES,
				typeOptions: { minValue: 0 },
				description: 'How long a conversation ID is remembered. 0 turns deduplication off.',
			},
			{
				displayName: 'Deduplicate By Field',
				name: 'dedupeField',
				type: 'string',
				default: DEFAULT_DEDUPE_FIELD,
				description:
					'Field (dotted path, e.g. variables.call_id) identifying a conversation: a repeat within the window is answered 200 and starts nothing. Without it, the X-VoiceAI-Delivery header counts. Empty: off.',
			},
			{
				// Named agentIds as before: workflows saved when this was a plain comma-separated string
				// still read.
				displayName: 'Only Agent',
				name: 'agentIds',
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
				description:
					'Start only for deliveries from this agent. By ID also takes several IDs, comma-separated. With chatbot IDs too, a delivery matching either starts the workflow.',
				modes: [
					{
						displayName: 'From List',
						name: 'list',
						type: 'list',
						placeholder: 'Select an agent...',
						typeOptions: { searchListMethod: 'searchAgents', searchable: true },
					},
					{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'agent_123, agent_456' },
				],
			},
			{
				displayName: 'Only Chatbot IDs',
				name: 'chatbotIds',
				type: 'string',
				default: '',
				placeholder: 'cb_support, cb_booking',
			},
			{
				displayName: 'Without Agent or Chatbot ID',
				name: 'withoutSourceId',
				type: 'options',
				default: 'drop',
				description:
					'With Only Agent or Only Chatbot IDs set: what happens to a delivery that names neither an agent nor a chatbot. The answer to the service counts dropped ones as "unidentified".',
				options: [
					{ name: 'Drop', value: 'drop', description: 'Start nothing for it' },
					{ name: 'Start the Workflow', value: 'start', description: 'Let it through the filter' },
				],
			},
		],
	},
];

// Native resolvers: no isolate per delivery (docs/trigger-performance.md). '' lets the node answer.
const responseMode = '={{$parameter["respondWhen"] || "onReceived"}}';
const responseData = '={{$parameter["respondWhen"] === "lastNode" ? "noData" : ""}}';
export const respondWhenWebhookFields = {
	responseMode,
	responseData,
	[Symbol.for('n8n.webhookDescriptionResolvers')]: {
		responseMode: {
			template: responseMode,
			resolve: ({ respondWhen }: INodeParameters) => respondWhen || 'onReceived',
		},
		responseData: {
			template: responseData,
			resolve: ({ respondWhen }: INodeParameters) => (respondWhen === 'lastNode' ? 'noData' : ''),
		},
	},
};
