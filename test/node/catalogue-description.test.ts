/**
 * The catalogue of operations (test/support/catalogue.ts) against the node itself, and the README's
 * operations table against the catalogue. No n8n run: the node's description and its operation objects.
 */
import type { INodePropertyOptions } from 'n8n-workflow';
import { readFileSync } from 'node:fs';

import { agentOperations } from '../../nodes/VoiceAi/actions/agent';
import { chatbotOperations } from '../../nodes/VoiceAi/actions/chatbot';
import { contactOperations } from '../../nodes/VoiceAi/actions/contact';
import { conversationOperations } from '../../nodes/VoiceAi/actions/conversation';
import { sipOperations } from '../../nodes/VoiceAi/actions/sip';
import { trustProductOperations } from '../../nodes/VoiceAi/actions/trustProduct';
import type { VoiceAiOperation } from '../../nodes/VoiceAi/actions/types';
import { webhookOperations } from '../../nodes/VoiceAi/actions/webhook';
import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node';
import { README, operationsTable, tableIn } from '../../scripts/operations-table';
import { catalogue } from '../support/catalogue';

const implemented: Record<string, Record<string, VoiceAiOperation>> = {
	agent: agentOperations,
	chatbot: chatbotOperations,
	contact: contactOperations,
	conversation: conversationOperations,
	sip: sipOperations,
	trustProduct: trustProductOperations,
	webhook: webhookOperations,
};

/** Every resource/operation pair the editor offers, with the names it shows. */
function offered() {
	const { properties } = new VoiceAi().description;
	const resources = properties.find((property) => property.name === 'resource')!
		.options as INodePropertyOptions[];
	return resources.flatMap((resource) =>
		properties
			.filter(
				(property) =>
					property.name === 'operation' &&
					property.displayOptions?.show?.resource?.includes(resource.value),
			)
			.flatMap((property) => property.options as INodePropertyOptions[])
			.map((operation) => ({
				resource: String(resource.value),
				operation: String(operation.value),
				resourceName: resource.name,
				operationName: operation.name,
			})),
	);
}

const key = (entry: { resource: string; operation: string }) =>
	`${entry.resource}.${entry.operation}`;
const sorted = <T extends { resource: string; operation: string }>(list: T[]) =>
	[...list].sort((a, b) => key(a).localeCompare(key(b)));

describe('the catalogue of operations', () => {
	it("has exactly one entry per operation of the node's description, with its display names", () => {
		const entries = catalogue.map(({ resource, operation, resourceName, operationName }) => ({
			resource,
			operation,
			resourceName,
			operationName,
		}));
		expect(new Set(entries.map(key)).size).toBe(entries.length);
		expect(sorted(entries)).toEqual(sorted(offered()));
	});

	it('has an entry for every operation the router runs, and no other', () => {
		const routed = Object.entries(implemented).flatMap(([resource, operations]) =>
			Object.keys(operations).map((operation) => `${resource}.${operation}`),
		);
		expect(catalogue.map(key).sort()).toEqual(routed.sort());
	});

	it.each(catalogue.map((entry) => [key(entry), entry] as const))(
		'%s: retries and "changes data" agree with the operation and its request; a change says what the sandbox then holds',
		(_name, entry) => {
			const { repeatable } = implemented[entry.resource][entry.operation];
			expect(entry.example.holds !== undefined).toBe(entry.changesData);
			if (entry.request === null) {
				expect(entry.retried).toBe('noRequest');
				expect(entry.example.sends).toEqual([]);
				return;
			}
			// Only a request that may not be repeated is left alone after a timeout or a 5xx.
			expect(entry.retried).toBe(repeatable ? 'always' : 'after429');
			const [method] = entry.request.split(' ');
			expect(entry.changesData).toBe(method !== 'GET');
			expect(entry.example.sends.map((sent) => sent.method)).toContain(method);
		},
	);

	it('gives every operation invalid-input cases', () => {
		expect(catalogue.filter((entry) => entry.invalid.length === 0).map(key)).toEqual([]);
	});
});

describe("README.md's operations table", () => {
	it('is the one scripts/operations-table.ts writes (npm run docs:operations)', () => {
		const readme = readFileSync(README, 'utf8');
		expect(() => tableIn(readme)).not.toThrow();
		if (tableIn(readme) !== operationsTable())
			throw new Error(
				"README.md's operations table differs from the catalogue: run npm run docs:operations",
			);
	});
});
