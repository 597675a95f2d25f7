import type { AnswerShapes } from './shapes';

export interface PersistentButton {
	label: string;
	icon: string;
	action_type: string;
	action_value: string;
}

export interface Chatbot {
	id: string;
	chatbotName: string;
	chatbot_title: string;
	header_color: string;
	background_color: string;
	text_color: string;
	chatbot_image: string | null;
	pathway_id: string | null;
	welcome_message: string;
	webhook_url: string | null;
	template: string;
	bubble_icon: string;
	bubble_position: string;
	bubble_size: string;
	auto_open: boolean;
	user_message_color: string;
	input_placeholder: string;
	greeting_text: string;
	show_branding: boolean;
	bubble_icon_image: string | null;
	input_bg_color: string;
	persistent_buttons: PersistentButton[];
}

export interface Agent {
	id: string;
	agentName: string;
	phoneNumber: string;
	task: string;
	selectedVoice: string;
	created_at: string;
}

export interface Contact {
	id: string;
	list: string;
	name: string | null;
	phoneNumber: string | null;
}

export interface SipOptions {
	port: number;
	transport: string;
	secure_media: boolean;
	sip_username: string;
	sip_password: string;
}

export type DirectionType = 'inbound' | 'outbound';

export interface SipDirection {
	type: DirectionType;
	sip_endpoint: string;
	options: SipOptions;
}

export interface SipConfig {
	phone_number: string;
	trunkName: string;
	uuid_config_id: string;
	directions: SipDirection[];
}

export interface TrustProduct {
	sid: string;
	account_sid: string;
	friendly_name: string;
	email: string;
	status: string;
	policy_sid: string;
	date_created: string;
	date_updated: string;
	url: string;
}

export interface Upload {
	chatbotId: string;
	field: 'chatbot_image' | 'bubbleIconImage';
	path: string;
	filename: string | null;
	contentType: string;
	size: number;
	sha256: string;
	at: string;
}

export interface CarrierOperation {
	seq: number;
	at: string;
	phone_number: string;
	op: 'attach' | 'detach' | 'update' | 'rename';
	direction?: DirectionType;
	trunkName?: string;
	sip_endpoint?: string;
}

export interface ApiKeyRecord {
	id: string;
	orgId: string;
	name: string;
	hash: string;
	prefix: string;
	revoked: boolean;
	exposed: boolean;
	created_at: string;
	last_used_at: string | null;
}

export interface Org {
	id: string;
	name: string;
	webhook: string | null;
	chatbots: Map<string, Chatbot>;
	agents: Agent[];
	contacts: Contact[];
	sip: Map<string, SipConfig>;
	trustProducts: Map<string, TrustProduct[]>;
	uploads: Upload[];
	carrierLog: CarrierOperation[];
	/** Answer shapes for this organization's requests; null follows the sandbox's setting. */
	shapes: AnswerShapes | null;
}

export interface RequestLogEntry {
	at: string;
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	orgId: string | null;
	keyId: string | null;
	auth: 'bearer' | 'x-api-key' | 'both' | 'none';
	status: number;
	contentType: string | null;
	bodySize: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
	id: string;
	orgId: string;
	conversationId: string;
	target: 'account' | 'chatbot';
	url: string;
	status: DeliveryStatus;
	attempts: number;
	responseCodes: (number | null)[];
	errors: (string | null)[];
	created_at: string;
	completed_at: string | null;
	payload: DeliveryPayload;
}

export interface DeliveryPayload {
	event: 'conversation.completed';
	conversation_id: string;
	source: 'account_webhook' | 'chatbot';
	agent_id: string | null;
	chatbot_id: string | null;
	completed_at: string;
	variables: Record<string, unknown>;
}

export const FAULT_KINDS = [
	'status-500',
	'status-502',
	'status-503',
	'rate-limit',
	'rate-limit-no-retry-after',
	'timeout',
	'reset',
	'malformed-json',
	'html',
	'huge',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
	id: string;
	kind: FaultKind;
	method: string | null;
	path: string | null;
	org: string | null;
	status: number | null;
	remaining: number | null;
	hits: number;
}

export interface SandboxConfig {
	latencyMs: number;
	rateLimit: number;
	/** Shapes of the answers the spec does not show (see shapes.ts). */
	shapes: AnswerShapes;
}
