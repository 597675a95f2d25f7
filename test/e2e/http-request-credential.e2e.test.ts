/**
 * n8n's own HTTP Request node with "Predefined Credential Type" = Voice AI API, in a real n8n of every
 * line (docs/credentials.md sends users there for endpoints the node lacks): the key reaches the base
 * URL, and nothing at all reaches another origin, typed into the node or behind a 302 from the base
 * URL, with either header choice, on the node version the docs show (4.2, which sends Authorization on
 * across origins) and on the line's newest (from 4.4 on, it sends only X-API-Key on).
 */
import { httpGetWithVoiceAi } from '../../harness/engine/registry';
import type { Loopback, SeenRequest } from '../../harness/loopback';
import { json, startLoopback } from '../../harness/loopback';
import { n8nVersion, type WorkflowJson } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';
import { manualTrigger } from '../../harness/manualWorkflow';

const HEADERS = ['bearer', 'xApiKey'] as const;
/** 4.2 and the newest version of the HTTP Request node on this line (4.3 on 1.x), read in beforeAll. */
let versions: number[] = [];

const stack = stackForFile();
let front: Loopback;
let other: Loopback;

beforeAll(async () => {
	other = await startLoopback((_, res) => json(res, 200, { message: 'the other origin answered' }));
	// The base URL: answers its own paths, and redirects /moved/* to the other origin.
	front = await startLoopback((request, res) => {
		if (request.url.startsWith('/moved/')) {
			res.writeHead(302, { Location: `${other.url}${request.url}` });
			res.end();
			return;
		}
		json(res, 200, ['Leads']);
	});
	const types = await stack.api.request<Array<{ name: string; version: number | number[] }>>(
		'GET',
		'/types/nodes.json',
	);
	const httpRequest = types.filter((type) => type.name === 'n8n-nodes-base.httpRequest');
	const newest = Math.max(...httpRequest.flatMap((type) => type.version));
	versions = [...new Set([4.2, newest])];
}, 180_000);

afterAll(async () => {
	await front?.close();
	await other?.close();
});

function httpRequests(): WorkflowJson {
	const targets = {
		'Base URL': `${front.url}/contacts/list-names`,
		'Other origin': `${other.url}/contacts/list-names`,
		'Redirect 302': `${front.url}/moved/contacts/list-names`,
	};
	const nodes = Object.entries(targets).flatMap(([what, url], row) =>
		versions.map((typeVersion, column) => ({
			name: `${what} v${typeVersion}`,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion,
			position: [260 + column * 220, row * 160] as [number, number],
			parameters: httpGetWithVoiceAi(url),
			onError: 'continueRegularOutput',
			credentials: { voiceAiApi: { id: 'voiceai-credential', name: 'Voice AI account' } },
		})),
	);
	return {
		name: 'e2e HTTP Request with the Voice AI credential',
		nodes: [manualTrigger(), ...nodes],
		connections: {
			Start: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The error message of each item (the HTTP Request node's error item holds an error object). */
const errors = (items: Array<Record<string, unknown>> = []) =>
	items.map(({ error }) =>
		typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : error,
	);

/** What a request carried of the key, to show what reached where. */
const keyHeaders = (request: SeenRequest) => ({
	url: request.url,
	authorization: request.headers.authorization ?? null,
	xApiKey: request.headers['x-api-key'] ?? null,
});

describe(`n8n ${n8nVersion()}`, () => {
	it("the credential dialog's test refuses a base URL whose host the URL parser maps, naming the host it contacts; nothing is sent", async () => {
		front.requests.length = 0;
		// 127.0.0.%31 is 127.0.0.1 to the parser: the test reached the base URL with the key before.
		const data = {
			baseUrl: front.url.replace('127.0.0.1', '127.0.0.%31'),
			apiKey: stack.org.apiKey,
			authHeader: 'bearer',
		};
		const outcome = await stack.api.request<{ status: string; message: string }>(
			'POST',
			'/rest/credentials/test',
			{ credentials: { id: stack.credential.id, name: 'mapped host', type: 'voiceAiApi', data } },
		);
		expect(outcome).toEqual({
			status: 'Error',
			message: expect.stringContaining(
				`The Base URL holds a host the URL parser has to map: the URL parser contacts ${new URL(front.url).host}, not the host as written`,
			),
		});
		expect(front.requests).toEqual([]);
	});

	it.each(HEADERS)(
		'key in %s: the base URL gets the key; another origin, directly or through a 302, gets nothing',
		async (authHeader) => {
			front.requests.length = 0;
			other.requests.length = 0;
			const credential = await stack.api.createVoiceAiCredential(
				{ baseUrl: front.url, apiKey: stack.org.apiKey, authHeader },
				`HTTP Request ${authHeader}`,
			);
			const saved = await stack.api.importWorkflow(httpRequests(), { voiceAiApi: credential });
			const execution = await stack.api.runWorkflow(saved, 'Start');

			expect(other.requests.map(keyHeaders)).toEqual([]);
			const header = authHeader === 'bearer' ? 'authorization' : 'xApiKey';
			const sent = authHeader === 'bearer' ? `Bearer ${stack.org.apiKey}` : stack.org.apiKey;
			expect(versions.length).toBe(2);
			for (const typeVersion of versions) {
				expect(execution.outputs[`Base URL v${typeVersion}`]).toEqual(['Leads']);
				expect(errors(execution.outputs[`Other origin v${typeVersion}`])).toEqual([
					`The Voice AI API credential sends its key only to its base URL, ${front.url}: this request goes to ${other.url}, so nothing was sent. Use a URL that starts with the base URL, or another credential for other addresses.`,
				]);
				// The 302 comes back as the node's error: the redirect is not followed.
				expect(errors(execution.outputs[`Redirect 302 v${typeVersion}`])).toEqual([
					expect.stringMatching(/302/),
				]);
			}
			// The base URL got the key, in the one chosen header, on every request that reached it.
			expect(front.requests.map(keyHeaders)).toEqual(
				expect.arrayContaining([expect.objectContaining({ [header]: sent })]),
			);
			expect(front.requests.every((request) => keyHeaders(request)[header] === sent)).toBe(true);
			expect(JSON.stringify(execution.outputs)).not.toContain(stack.org.apiKey);
		},
	);
});
