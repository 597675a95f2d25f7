/**
 * The writes of the ct_ vocabulary suites (test/hostile/vocabulary.test.ts in the engine,
 * test/e2e/secrets-vocabulary.e2e.test.ts in a real n8n): ordinary words that look like secrets, sent
 * and given back as they are.
 */
import type { INodeParameters } from 'n8n-workflow';

import { CT_TEXT } from '../../harness/sandboxAdmin';

export const CHATBOT_UPDATE: INodeParameters = {
	resource: 'chatbot',
	operation: 'update',
	chatbotId: 'cb_contact_us',
	updateFields: { chatbotName: 'contact_list', chatbot_title: 'Direct_Sales' },
};

export const AGENT_CREATE: INodeParameters = {
	resource: 'agent',
	operation: 'create',
	phoneNumber: '+14155550164',
	agentName: 'Connect_Team',
	task: CT_TEXT,
	selectedVoice: 'paige',
};

/** Refused by the service (409): the seed already has an agent named Direct_Sales. */
export const DUPLICATE_AGENT: INodeParameters = {
	resource: 'agent',
	operation: 'create',
	phoneNumber: '+14155550165',
	agentName: 'Direct_Sales',
	task: 'x',
	selectedVoice: 'maya',
};

/** Not found (404): no chatbot has the id ct_leads. */
export const MISSING_CHATBOT: INodeParameters = {
	resource: 'chatbot',
	operation: 'update',
	chatbotId: 'ct_leads',
	updateFields: { chatbotName: 'x' },
};

/** Not found (404): no carrier is named ct_leads. */
export const MISSING_CARRIER: INodeParameters = {
	resource: 'trustProduct',
	operation: 'getAll',
	carrier: 'ct_leads',
	returnAll: true,
};
