import { addAgent } from './routes/agents';
import { addChatbot, newChatbot } from './routes/chatbot';
import { addSip } from './routes/sip';
import type { Store } from './store';
import type { Chatbot, Contact, SipDirection, TrustProduct } from './types';

export interface SeededOrg {
	id: string;
	name: string;
	apiKey: string;
}

/** The audit baseline the demo compares every number against. */
export const SIP_BASELINE = {
	sip_endpoint: 'sip:pbx.acme-dental.example',
	port: 5060,
	transport: 'udp',
	secure_media: true,
};

function directions(
	endpoint: string,
	port: number,
	transport: string,
	secure_media: boolean,
	user: string,
): SipDirection[] {
	return (['inbound', 'outbound'] as const).map((type) => ({
		type,
		sip_endpoint: endpoint,
		options: {
			port,
			transport,
			secure_media,
			sip_username: user,
			sip_password: `${user}-secret-${type}`,
		},
	}));
}

function chatbot(id: string, name: string, fields: Partial<Chatbot>): Chatbot {
	return Object.assign(newChatbot(id, name), fields);
}

function trust(
	sid: string,
	friendly_name: string,
	email: string,
	status: string,
	created: string,
): TrustProduct {
	return {
		sid,
		account_sid: 'AC5b0c4e1e2f3a4b5c6d7e8f9a0b1c2d3e',
		friendly_name,
		email,
		status,
		policy_sid: 'RNdfbf3fae0e1107f8aded0e7cead80bf5',
		date_created: created,
		date_updated: created,
		url: `https://trusthub.twilio.com/v1/CustomerProfiles/${sid}`,
	};
}

const contacts = (list: string, people: [string, string][]): Contact[] =>
	people.map(([name, phoneNumber], i) => ({
		id: `contact_${list.toLowerCase()}_${i + 1}`,
		list,
		name,
		phoneNumber,
	}));

/** Two organizations with fixed ids; their API keys are new on every start. */
export function seedDemo(store: Store): SeededOrg[] {
	const acme = store.createOrg('Acme Dental', 'org_acme');
	const globex = store.createOrg('Globex Telecom', 'org_globex');

	addChatbot(
		store,
		acme,
		chatbot('cb_acme_support', 'Acme Support', {
			chatbot_title: 'Acme Dental Support',
			header_color: '#0EA5E9',
			welcome_message: 'Hello! Questions about your appointment or billing?',
			template: 'modern',
			bubble_icon: 'headphones',
			greeting_text: 'Need help?',
			persistent_buttons: [
				{ label: 'Call us', icon: 'phone', action_type: 'phone', action_value: '+14155550101' },
				{
					label: 'Opening hours',
					icon: 'clock',
					action_type: 'url',
					action_value: 'https://acme-dental.example/hours',
				},
			],
		}),
	);
	addChatbot(
		store,
		acme,
		chatbot('cb_acme_booking', 'Acme Booking', {
			chatbot_title: 'Book a cleaning',
			header_color: '#10B981',
			pathway_id: 'pw_acme_booking_v2',
			welcome_message: 'Let us find a time that suits you.',
			bubble_icon: 'sparkles',
			bubble_position: 'bottom-left',
		}),
	);
	addChatbot(
		store,
		globex,
		chatbot('cb_globex_main', 'Globex Assistant', {
			chatbot_title: 'Globex Telecom',
			header_color: '#7C3AED',
			template: 'glassmorphism',
			bubble_icon: 'bot',
			bubble_size: 'large',
			show_branding: false,
		}),
	);

	addAgent(
		store,
		acme,
		{
			agentName: 'Reception',
			phoneNumber: '+14155550101',
			task: 'Answer calls for Acme Dental, book and move appointments, and take messages for the dentists.',
			selectedVoice: 'maya',
		},
		'agent_acme_reception',
	);
	addAgent(
		store,
		acme,
		{
			agentName: 'Recall Reminders',
			phoneNumber: '+14155550102',
			task: 'Call patients who are due for their six-month check-up and offer them a slot.',
			selectedVoice: 'ryan',
		},
		'agent_acme_recall',
	);
	addAgent(
		store,
		globex,
		{
			agentName: 'Sales Desk',
			phoneNumber: '+442071838750',
			task: 'Qualify inbound business leads and book a call with an account manager.',
			selectedVoice: 'florian',
		},
		'agent_globex_sales',
	);

	acme.contacts.push(
		...contacts('Leads', [
			['Dana Whitfield', '+14155550190'],
			['Luis Ortega', '+14155550191'],
		]),
		...contacts('Patients', [
			['Mara Chen', '+14155550192'],
			['Tom Becker', '+14155550193'],
			['Ivy Park', '+14155550194'],
		]),
		...contacts('Newsletter', [['Sam Rivera', '+14155550195']]),
	);
	globex.contacts.push(
		...contacts('Enterprise', [
			['Initech Procurement', '+442071838751'],
			['Umbrella Facilities', '+442071838752'],
		]),
	);

	const { sip_endpoint, port, transport, secure_media } = SIP_BASELINE;
	addSip(store, acme, {
		phone_number: '+14155550101',
		trunkName: 'acme-main',
		uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a01',
		directions: directions(sip_endpoint, port, transport, secure_media, 'acme-main'),
	});
	addSip(store, acme, {
		phone_number: '+14155550102',
		trunkName: 'acme-recall',
		uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a02',
		directions: directions(sip_endpoint, port, 'tcp', secure_media, 'acme-recall'),
	});
	addSip(store, acme, {
		phone_number: '+14155550103',
		trunkName: 'acme-after-hours',
		uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a03',
		directions: directions(sip_endpoint, 5080, transport, false, 'acme-after-hours'),
	});
	addSip(store, globex, {
		phone_number: '+442071838750',
		trunkName: 'globex-london',
		uuid_config_id: '9d8e7f6a-5b4c-4d3e-9f2a-1b0c9d8e7f01',
		directions: directions('sip:sip.globex-telecom.example', 5060, 'udp', true, 'globex-london'),
	});

	acme.trustProducts.set('twilio', [
		trust(
			'BU1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d',
			'Acme Dental SHAKEN/STIR',
			'compliance@acme-dental.example',
			'twilio-approved',
			'2024-03-11T16:20:31Z',
		),
		trust(
			'BU2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e',
			'Acme Dental Voice Integrity',
			'compliance@acme-dental.example',
			'twilio-approved',
			'2024-03-12T09:02:10Z',
		),
		trust(
			'BU3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f',
			'Acme Dental CNAME',
			'compliance@acme-dental.example',
			'pending-review',
			'2024-05-02T13:45:00Z',
		),
	]);
	globex.trustProducts.set('twilio', [
		{
			...trust(
				'BU4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a',
				'Globex Telecom SHAKEN/STIR',
				'trust@globex-telecom.example',
				'twilio-approved',
				'2023-11-20T08:00:00Z',
			),
			account_sid: 'AC9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c',
		},
	]);

	return [acme, globex].map((org) => {
		const { apiKey } = store.createKey(org.id, 'demo');
		return { id: org.id, name: org.name, apiKey };
	});
}
