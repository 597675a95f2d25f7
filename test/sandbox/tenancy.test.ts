import { FormData } from 'undici';

import { type Reply } from '../../harness/sandboxHttp';
import { startedSandbox } from './startedSandbox';

/**
 * Every id-bearing endpoint, called by Globex with Acme's ids: the answer must be the very 404 that an id
 * nobody has gets, and Acme's data must not change.
 */
describe('sandbox tenant isolation', () => {
	const h = startedSandbox();

	const asGlobex = (method: string, path: string, json?: unknown) =>
		h().api(method, path, { key: h().globexKey, ...(json !== undefined ? { json } : {}) });

	function sameAsMissing(foreign: Reply, missing: Reply): void {
		expect(foreign.status).toBe(404);
		expect(foreign.body).toEqual(missing.body);
		expect(foreign.body.error.code).toBe('not_found');
	}

	it('PATCH /chatbot/{id}', async () => {
		const body = () => {
			const form = new FormData();
			form.append('chatbotName', 'Taken over');
			return form;
		};
		const foreign = await h().api('PATCH', '/chatbot/cb_acme_support', {
			key: h().globexKey,
			form_data: body(),
		});
		const missing = await h().api('PATCH', '/chatbot/cb_does_not_exist', {
			key: h().globexKey,
			form_data: body(),
		});
		sameAsMissing(foreign, missing);
	});

	it('GET /sip/{phone_number}', async () => {
		sameAsMissing(
			await asGlobex('GET', '/sip/%2B14155550101'),
			await asGlobex('GET', '/sip/%2B14155550999'),
		);
	});

	it('PATCH /sip/sip2 by phone number and by uuid_config_id', async () => {
		sameAsMissing(
			await asGlobex('PATCH', '/sip/sip2', { phone_number: '+14155550101', trunkName: 'mine' }),
			await asGlobex('PATCH', '/sip/sip2', { phone_number: '+14155550999', trunkName: 'mine' }),
		);
		// Globex's own number with Acme's configuration id.
		sameAsMissing(
			await asGlobex('PATCH', '/sip/sip2', {
				phone_number: '+442071838750',
				uuid_config_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a01',
				trunkName: 'mine',
			}),
			await asGlobex('PATCH', '/sip/sip2', {
				phone_number: '+442071838750',
				uuid_config_id: '00000000-0000-4000-8000-000000000000',
				trunkName: 'mine',
			}),
		);
	});

	it('POST /sip/detach2', async () => {
		sameAsMissing(
			await asGlobex('POST', '/sip/detach2', {
				phone_number: '+14155550101',
				directions: [{ type: 'inbound' }],
			}),
			await asGlobex('POST', '/sip/detach2', {
				phone_number: '+14155550999',
				directions: [{ type: 'inbound' }],
			}),
		);
	});

	it('left Acme untouched and never told the carrier', async () => {
		const state = (await h().admin('GET', '/orgs/org_acme/state')).body;
		expect(state.chatbots.find((c: { id: string }) => c.id === 'cb_acme_support').chatbotName).toBe(
			'Acme Support',
		);
		const main = state.sip.find((s: { phone_number: string }) => s.phone_number === '+14155550101');
		expect(main.trunkName).toBe('acme-main');
		expect(main.directions).toHaveLength(2);
		expect((await h().admin('GET', '/orgs/org_acme/carrier-log')).body).toEqual([]);
		expect((await h().admin('GET', '/orgs/org_globex/carrier-log')).body).toEqual([]);
	});

	it("lists only the caller's own agents, lists, trust products and webhook", async () => {
		await h().api('POST', '/webhook/insert-webhook', {
			json: { webhook: 'https://acme.example/hook' },
		});
		const agents = await asGlobex('GET', '/callback/standardCampaign');
		expect(agents.body.map((a: { id: string }) => a.id)).toEqual(['agent_globex_sales']);
		expect((await asGlobex('GET', '/contacts/list-names')).body).toEqual(['Enterprise']);
		expect((await asGlobex('GET', '/agency/twilio/trust-products')).body).toHaveLength(1);
		expect((await h().admin('GET', '/orgs/org_globex/state')).body.webhook).toBeNull();
	});

	it.each([
		['agentId', 'agent_acme_reception', 'agent_nobody'],
		['chatbotId', 'cb_acme_support', 'cb_nobody'],
	])(
		'keeps simulated conversations inside the organization (%s)',
		async (field, foreign, missing) => {
			const converse = async (id: string) =>
				await h().admin('POST', '/orgs/org_globex/conversations', { [field]: id, variables: {} });
			sameAsMissing(await converse(foreign), await converse(missing));
		},
	);
});
