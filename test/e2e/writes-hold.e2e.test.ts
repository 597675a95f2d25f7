/**
 * In a real n8n, on every line (issue 40): two SIP Update items on one number at the default Concurrency
 * both hold; a Detach the service answers 409 while a listed direction is still attached fails naming
 * the number and the directions; Pass Once passes the whole item, its binary data included.
 */
import { START, chain, codeNode, itemsNode, voiceAiNode } from '../../harness/manualWorkflow';
import { n8nVersion } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const stack = stackForFile();

interface Direction {
	type: string;
	sip_endpoint: string;
	options: Record<string, unknown>;
}

async function directionsOf(phone: string): Promise<Direction[]> {
	const state = await stack.admin.state<{
		sip: Array<{ phone_number: string; directions: Direction[] }>;
	}>(stack.org.id);
	return state.sip.find((entry) => entry.phone_number === phone)!.directions;
}

async function run(name: string, nodes: Parameters<typeof chain>[1]) {
	const saved = await stack.api.importWorkflow(chain(name, nodes), {
		voiceAiApi: stack.credential,
	});
	return await stack.api.runWorkflow(saved, START);
}

describe(`n8n ${n8nVersion()}: a write reports what holds`, () => {
	test('two SIP Update items on one number at the default Concurrency: both changes hold', async () => {
		const [inbound, outbound] = await directionsOf('+14155550101');
		const execution = await run('two ports, one number', [
			itemsNode('Ports', [
				{ json: { inboundPort: 5070, outboundPort: '' } },
				{ json: { inboundPort: '', outboundPort: 5071 } },
			]),
			voiceAiNode('Update', {
				resource: 'sip',
				operation: 'update',
				phoneNumber: '+14155550101',
				directions: {
					inbound: { sipEndpoint: inbound.sip_endpoint, port: '={{ $json.inboundPort }}' },
					outbound: { sipEndpoint: outbound.sip_endpoint, port: '={{ $json.outboundPort }}' },
				},
			}),
		]);
		expect({ status: execution.status, error: execution.error }).toEqual({
			status: 'success',
			error: undefined,
		});
		const after = await directionsOf('+14155550101');
		expect(after.map((direction) => [direction.type, direction.options.port])).toEqual([
			['inbound', 5070],
			['outbound', 5071],
		]);
	});

	test('Detach of both directions where only inbound is attached: an error naming number and directions', async () => {
		const detach = (directions: string[]) =>
			voiceAiNode(`Detach ${directions.join(' and ')}`, {
				resource: 'sip',
				operation: 'detach',
				phoneNumber: '+14155550102',
				directions,
				options: { maxAttempts: 1 },
			});
		const first = await run('detach outbound', [detach(['outbound'])]);
		expect(first.status).toBe('success');
		const execution = await run('detach both', [detach(['inbound', 'outbound'])]);
		expect(execution.status).toBe('error');
		expect(execution.error).toMatch(/SIP Detach of \+14155550102 \(inbound, outbound\)/);
		expect(execution.error).toMatch(/409/);
		expect(execution.error).toMatch(/still attached: inbound/);
		expect(execution.outputs['Detach inbound and outbound'] ?? []).toEqual([]);
		expect((await directionsOf('+14155550102')).map((direction) => direction.type)).toEqual([
			'inbound',
		]);
	});

	test('Pass Once passes the whole item: json and binary data', async () => {
		const execution = await run('pass once with a file', [
			itemsNode('Delivery', [
				{
					json: { conversation_id: `conv-binary-${Date.now()}` },
					binary: {
						transcript: { data: 'hello', mimeType: 'text/plain', fileName: 'transcript.txt' },
					},
				},
			]),
			voiceAiNode('Pass Once', { resource: 'conversation', operation: 'passOnce' }),
			codeNode(
				'Files',
				'return $input.all().map((item) => ({ json: { id: item.json.conversation_id, files: Object.keys(item.binary ?? {}), fileName: item.binary?.transcript?.fileName ?? null } }));',
			),
		]);
		expect({ status: execution.status, error: execution.error }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(execution.outputs.Files).toEqual([
			{
				id: expect.stringMatching(/^conv-binary-/),
				files: ['transcript'],
				fileName: 'transcript.txt',
			},
		]);
	});
});
