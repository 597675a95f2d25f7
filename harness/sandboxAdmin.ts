/** The sandbox's admin API (sandbox/, described in sandbox/README.md) as the e2e suite uses it. */

export interface SandboxHandle {
	baseUrl: string;
	adminToken: string;
}

export interface Delivery {
	id: string;
	conversationId: string;
	target: 'account' | 'chatbot';
	url: string;
	status: 'pending' | 'delivered' | 'failed';
	attempts: number;
	responseCodes: number[];
}

export class SandboxAdmin {
	constructor(private readonly sandbox: SandboxHandle) {}

	async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.sandbox.baseUrl}${path}`, {
			method,
			headers: {
				'X-Sandbox-Admin': this.sandbox.adminToken,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`sandbox ${method} ${path} → HTTP ${res.status}: ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	async state<T = Record<string, unknown>>(org: string): Promise<T> {
		return await this.request<T>('GET', `/__sandbox/orgs/${org}/state`);
	}

	/** Adds agents, chatbots, SIP numbers, contacts and trust products to the org (all or nothing). */
	async seed(org: string, body: Record<string, unknown[]>): Promise<unknown> {
		return await this.request('POST', `/__sandbox/orgs/${org}/seed`, body);
	}

	/** Runs `task` while GET /sip answers the org in the given shape (sandbox/README.md), then the documented one. */
	async withSipGetShape<T>(org: string, shape: string, task: () => Promise<T>): Promise<T> {
		await this.request('PUT', `/__sandbox/orgs/${org}/sip-get-shape`, { shape });
		try {
			return await task();
		} finally {
			await this.request('PUT', `/__sandbox/orgs/${org}/sip-get-shape`, { shape: 'documented' });
		}
	}

	/** The account webhook URL registered for the org (what the trigger set), or null. */
	async accountWebhook(org: string): Promise<string | null> {
		const state = await this.state<{ webhook: unknown }>(org);
		const webhook = state.webhook as string | { url?: string } | null | undefined;
		if (webhook && typeof webhook === 'object') return webhook.url ?? null;
		return webhook ?? null;
	}

	async simulateConversation(
		org: string,
		body: {
			agentId?: string;
			chatbotId?: string;
			variables: Record<string, unknown>;
			conversationId?: string;
		},
	): Promise<{ conversationId: string; deliveries: unknown[] }> {
		return await this.request('POST', `/__sandbox/orgs/${org}/conversations`, body);
	}

	async deliveries(org: string): Promise<Delivery[]> {
		return await this.request<Delivery[]>(
			'GET',
			`/__sandbox/deliveries?org=${encodeURIComponent(org)}`,
		);
	}
}

/**
 * Ordinary words and ids that contain `ct_` at the start, in the middle and at the end, in URLs and as
 * JSON keys: none of them is a secret, so no output value or error text may change a byte of them.
 */
export const CT_WORDS = [
	'contact_list',
	'Direct_Sales',
	'product_x',
	'ct_leads',
	'ag_contact_1',
	'select_',
	'project_',
	'connect_',
	'respect_',
	'exact_',
	'perfect_',
	'act_',
	'fact_',
	'direct_mail',
	'ct_',
	'ct_2024',
	'x.ct_y',
];
export const CT_URL = 'https://acme.example/contact_us?ref=product_x';
/** Free text made of the vocabulary, a URL and JSON with `ct_` keys in it. */
export const CT_TEXT = `${CT_WORDS.join(' ')} ${CT_URL} {"contact_list":"product_x","ct_leads":1}`;

/** SIP passwords that are also parts of ordinary SIP data, each with a number whose data contain it. */
export const SHORT_SIP_PASSWORDS = [
	{
		password: '1234',
		phone_number: '+14155551234',
		trunkName: 'branch-1234',
		sip_endpoint: 'sip:pbx1234.example.com',
		transport: 'udp',
		sip_username: 'ext1234',
	},
	{
		password: 'p',
		phone_number: '+14155550191',
		trunkName: 'pbx-prod-trunk',
		sip_endpoint: 'sip:pbx.example.com',
		transport: 'udp',
		sip_username: 'operator-p',
	},
	{
		password: 'udp',
		phone_number: '+14155550192',
		trunkName: 'udp',
		sip_endpoint: 'sip:udp.example.com',
		transport: 'udp',
		sip_username: 'udp',
	},
	{
		password: 'sip',
		phone_number: '+14155550193',
		trunkName: 'sip-trunk',
		sip_endpoint: 'sip:sip.example.com',
		transport: 'sip',
		sip_username: 'sip',
	},
] as const;

/** The numbers of SHORT_SIP_PASSWORDS and the vocabulary's agents, lists, chatbot, number and trust product. */
export function vocabularySeed(): Record<string, unknown[]> {
	const direction = (type: string, entry: (typeof SHORT_SIP_PASSWORDS)[number]) => ({
		type,
		sip_endpoint: entry.sip_endpoint,
		options: {
			port: 5060,
			transport: entry.transport,
			secure_media: true,
			sip_username: entry.sip_username,
			sip_password: entry.password,
		},
	});
	return {
		agents: [
			{
				id: 'agent_contact_1',
				agentName: 'contact_list',
				phoneNumber: '+14155550161',
				task: CT_TEXT,
				selectedVoice: 'maya',
			},
			{
				id: 'agent_direct_sales',
				agentName: 'Direct_Sales',
				phoneNumber: '+14155550162',
				task: `Call ct_leads from contact_list: ${CT_URL}`,
				selectedVoice: 'june',
			},
			{
				agentName: 'ct_leads',
				phoneNumber: '+14155550163',
				task: 'select_ project_ connect_',
				selectedVoice: 'ryan',
			},
		],
		contacts: ['ct_leads', 'contact_list', 'Direct_Sales', 'product_x'].map((list) => ({
			list,
			name: `respect_ ${list}`,
		})),
		chatbots: [
			{
				id: 'cb_contact_us',
				chatbotName: 'Direct_Sales',
				welcome_message: CT_TEXT,
				webhook_url: CT_URL,
			},
		],
		sip: [
			{
				phone_number: '+14155550171',
				trunkName: 'connect_trunk_product_x',
				directions: [
					{
						type: 'inbound',
						sip_endpoint: 'sip:contact.example.com',
						options: {
							port: 5060,
							transport: 'udp',
							secure_media: true,
							sip_username: 'contact_user',
							sip_password: 'vocabulary-secret-71',
						},
					},
				],
			},
			...SHORT_SIP_PASSWORDS.map((entry) => ({
				phone_number: entry.phone_number,
				trunkName: entry.trunkName,
				directions: [direction('inbound', entry), direction('outbound', entry)],
			})),
		],
		trustProducts: [
			{ friendly_name: 'Direct_Sales', email: 'contact_us@acme.example', url: CT_URL },
		],
	};
}
