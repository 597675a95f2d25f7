import type { INodeParameters, INodeProperties } from 'n8n-workflow';

export const DEFAULT_DEDUPE_WINDOW_MINUTES = 60;
export const DEFAULT_DEDUPE_FIELD = 'conversation_id';

/**
 * The second way in (docs/trigger.md): a chatbot's own `webhook_url` points at this workflow, and
 * nothing is registered at the service, so the account's one webhook and its ownership stay untouched.
 */
export const RECEIVE_FROM_CHATBOT = 'chatbotWebhookUrl';

/** Shown only when the trigger receives through the account's webhook. */
const accountWay = { hide: { receiveFrom: [RECEIVE_FROM_CHATBOT] } };

export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Receive From',
		name: 'receiveFrom',
		type: 'options',
		default: 'accountWebhook',
		options: [
			{
				name: 'The Account Webhook (Registered on Publish)',
				value: 'accountWebhook',
				description:
					"Publishing points the organization's one webhook here: every conversation the account completes",
			},
			{
				name: "A Chatbot's Own Webhook URL (Nothing Registered)",
				value: RECEIVE_FROM_CHATBOT,
				description:
					"Only the conversations of chatbots whose webhook_url you set to this workflow's address; the account's webhook is left to others",
			},
		],
	},
	{
		displayName:
			'Nothing is registered. Publish, and paste the address Listen for test event gives into the chatbot\'s Webhook URL in the dashboard. <a href="https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/trigger.md" target="_blank">Details</a>',
		name: 'chatbotWebhookNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { receiveFrom: [RECEIVE_FROM_CHATBOT] } },
	},
	{
		// At most three lines in the panel; the rules are in the linked page.
		displayName:
			'The account has one webhook: publishing points it here, and a second workflow is refused. <a href="https://github.com/n8n-nodes-voiceai/n8n-nodes-voiceai/blob/main/docs/trigger-ownership.md" target="_blank">Details</a>',
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
			{
				name: 'Raw Delivery',
				value: 'raw',
				description: 'The delivery body exactly as the service sent it',
			},
			{
				name: 'Variables and Metadata',
				value: 'variables',
				description:
					'The extracted variables as fields, a _voiceAi object with conversation ID, source, agent, chatbot and times, and a conversation object with every other delivered field as sent',
			},
		],
	},
	{
		displayName: 'Answer the Service',
		// The values are n8n's webhook response modes: the description's responseMode is this option.
		name: 'respondWhen',
		type: 'options',
		default: 'onReceived',
		description: 'When the service gets its answer for a delivery',
		options: [
			{
				name: 'When Received',
				value: 'onReceived',
				description:
					'Answer 200 as soon as the delivery is checked and queued. A run that fails or is lost later (a worker killed) is not delivered again.',
			},
			{
				name: 'When the Workflow Has Finished',
				value: 'lastNode',
				description:
					'Answer 200 only after the run succeeded; a failed or lost run gets an error or no answer, so a service that retries sends the delivery again. Turns off the in-memory duplicate check (use Voice AI > Conversation > Pass Once).',
			},
		],
	},
	{
		displayName: 'If Another Workflow Holds It',
		name: 'whenHeld',
		type: 'options',
		displayOptions: accountWay,
		default: 'fail',
		description:
			"What publishing does when another published workflow already receives this organization's deliveries, whatever key or credential it uses",
		options: [
			{
				name: 'Fail to Publish',
				value: 'fail',
				description: 'Publishing fails with a message naming the workflow that holds the account',
			},
			{
				name: 'Take Over the Account Webhook',
				value: 'takeOver',
				description:
					'This workflow receives from now on; unpublishing it gives the account back to the other workflow',
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
			"No record of who holds the account survives an n8n restart: after n8n starts, it cannot tell whether another published workflow receives this organization's deliveries until one is published or receives a delivery. Applies to publishing and to test listens.",
		options: [
			{
				name: 'Refuse',
				value: 'refuse',
				description:
					'Publishing or the test listen fails and says why, so it cannot cut a published workflow off',
			},
			{
				name: 'Go Ahead',
				value: 'listen',
				description:
					'For an organization no other published workflow uses: publishing takes the account; a test listen leaves it on the test URL afterwards',
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
			'The service has no way to delete the account webhook. When this workflow is unpublished and no other published workflow wants the account, choose what it points at.',
		options: [
			{
				name: 'Leave Account Webhook As Is',
				value: 'leave',
				description:
					"It keeps pointing at this workflow's production URL, which answers 404 while the workflow is unpublished",
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
		description:
			'Registered as the account webhook when this workflow is unpublished and no other published workflow wants the account',
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
					"Whether to publish and listen even though n8n's webhook URL is local (localhost, a private or link-local address, .local, a name without a dot) while the Voice AI base URL is not. Turn on only when the service runs on n8n's network.",
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
					'Field of the delivery (dotted path, e.g. variables.call_id) that identifies a conversation. A second delivery with the same value within the window is answered 200 and starts nothing. A delivery without the field is identified by its X-VoiceAI-Delivery header. Empty: no deduplication.',
			},
			{
				// Named agentIds as before: workflows saved when this was a plain comma-separated string still read.
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
				description:
					'Start only for deliveries from these chatbots (comma-separated). With agent IDs too, a delivery matching either list starts the workflow.',
			},
			{
				displayName: 'Without Agent or Chatbot ID',
				name: 'withoutSourceId',
				type: 'options',
				default: 'drop',
				description:
					'With Only Agent or Only Chatbot IDs set: what happens to a delivery that names neither an agent nor a chatbot. The answer to the service counts dropped ones as "unidentified".',
				options: [
					{
						name: 'Drop',
						value: 'drop',
						description: 'Start nothing for it; it cannot be matched to the filter',
					},
					{ name: 'Start the Workflow', value: 'start', description: 'Let it through the filter' },
				],
			},
		],
	},
];

// n8n (2.40 on) resolves a webhook description's field from the node's parameters without its
// expression engine when it still carries the template declared with a resolver under this symbol
// (older n8n ignores it). Otherwise every delivery evaluates both templates, an expression isolate
// each (docs/trigger-performance.md).
type AnswerField = [template: string, resolve: (respondWhen: unknown) => unknown];
const answerFields: Record<string, AnswerField> = {
	responseMode: ['={{$parameter["respondWhen"] || "onReceived"}}', (when) => when || 'onReceived'],
	// When received, empty lets the node's own answer through; when finished, "noData" keeps the
	// workflow's output away from the service.
	responseData: [
		'={{$parameter["respondWhen"] === "lastNode" ? "noData" : ""}}',
		(when) => (when === 'lastNode' ? 'noData' : ''),
	],
};

/** Spread into the trigger's webhook description: both fields, each with its native resolver. */
export const respondWhenWebhookFields = {
	...Object.fromEntries(
		Object.entries(answerFields).map(([field, [template]]) => [field, template]),
	),
	[Symbol.for('n8n.webhookDescriptionResolvers')]: Object.fromEntries(
		Object.entries(answerFields).map(([field, [template, resolve]]) => [
			field,
			{ template, resolve: (parameters: INodeParameters) => resolve(parameters.respondWhen) },
		]),
	),
};
