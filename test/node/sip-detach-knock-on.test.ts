/**
 * One item fails hard while a Detach item, answered 409, reads the configuration back (issue 51,
 * item 8): the read is stopped because the other item failed, and the node reports that item's error
 * (the cause), not the 409 item's "could not read" (the knock-on). A loopback service answers the 409
 * only after the other item's 500 has gone out, so the read comes after the stop.
 */
import { jsonBody, json, startLoopback } from '../../harness/loopback';
import type { Loopback } from '../../harness/loopback';
import { runNode } from '../../harness/engine';

const ATTACHED = '+14155550101';
const FAILING = '+14155550102';

let service: Loopback;
beforeEach(async () => {
	let failed: () => void = () => {};
	const failingAnswered = new Promise<void>((resolve) => (failed = resolve));
	service = await startLoopback(async (request, res) => {
		if (request.method === 'POST' && jsonBody(request).phone_number === FAILING) {
			json(res, 500, { error: 'carrier_unavailable', message: 'the carrier did not answer' });
			res.on('finish', () => setTimeout(failed, 200));
			return;
		}
		if (request.method === 'POST') {
			await failingAnswered;
			return json(res, 409, { error: 'conflict', message: 'direction not attached' });
		}
		json(res, 200, {
			phone_number: ATTACHED,
			directions: [{ type: 'inbound', sip_endpoint: 'sip:pbx.example.com', options: {} }],
		});
	});
});
afterEach(async () => await service.close());

it('the failing item’s error is reported, not the Detach item’s stopped read', async () => {
	const result = await runNode({
		parameters: {
			resource: 'sip',
			operation: 'detach',
			phoneNumber: '={{ $json.phone }}',
			options: { maxAttempts: 1 },
		},
		credentials: {
			voiceAiApi: { baseUrl: service.url, apiKey: 'ct_knock_on_test_0123456789abcdef' },
		},
		items: [{ json: { phone: ATTACHED } }, { json: { phone: FAILING } }],
	});
	expect(service.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
	expect(result.error?.message).toMatch(/500/);
	expect(result.error?.message).toMatch(/carrier did not answer|carrier_unavailable/);
	expect(result.error?.message).not.toMatch(/409/);
	expect(result.error?.description ?? '').not.toMatch(/another item of this execution failed/);
	expect((result.error?.context as { itemIndex?: number } | undefined)?.itemIndex).toBe(1);
});
