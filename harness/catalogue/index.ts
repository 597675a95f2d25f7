/**
 * The catalogue of the Voice AI node's operations: one entry per operation of the registry
 * (nodes/VoiceAi/actions/registry.ts), its cases written per resource in this folder. It drives
 * - the wire test (test/node/catalogue.test.ts): each example runs in n8n's engine against a fresh
 *   sandbox, which must see exactly `sends`; `check` must hold for the output and `holds` for what
 *   the sandbox then holds (an operation that changes no data must leave it as it was);
 * - the end-to-end run of every operation (test/e2e/workflows.e2e.test.ts): each example runs the
 *   same way in a real n8n, the items coming from a Code node;
 * - the invalid-input test (test/hostile/bad-input.test.ts): every `invalid` case is refused before
 *   anything is sent, naming the field and the item;
 * - the error-output test (test/node/node-settings.test.ts): with On Error "Continue (using error
 *   output)", the `failing` item leaves on the error output and the others on the success output.
 * test/node/catalogue-description.test.ts fails when an operation has no entry here, or an entry no
 * operation. Adding an operation: docs/adding-an-operation.md.
 */
import type { INodeParameters } from 'n8n-workflow';

import { allOperations } from '../../nodes/VoiceAi/actions/registry';
import { agentCases } from './agent';
import { chatbotCases } from './chatbot';
import { contactCases } from './contact';
import { conversationCases } from './conversation';
import { bad } from './shared';
import { sipCases } from './sip';
import { trustProductCases } from './trustProduct';
import type { CatalogueEntry, InvalidInput, OperationCases } from './types';
import { webhookCases } from './webhook';

export type * from './types';

/** Each resource's cases, by resource value and then by operation value. */
export const cases: Record<string, Record<string, OperationCases>> = {
	agent: agentCases,
	chatbot: chatbotCases,
	contact: contactCases,
	conversation: conversationCases,
	sip: sipCases,
	trustProduct: trustProductCases,
	webhook: webhookCases,
};

/** The README's way of writing an operation's requests. */
export const requestText = (requests: Array<{ method: string; path: string }>) =>
	requests.length === 0 ? null : requests.map(({ method, path }) => `${method} ${path}`).join(', ');

/** Every registered operation that has cases, in the editor's order. */
export const catalogue: CatalogueEntry[] = allOperations().flatMap(
	({ resource, value, operation }) => {
		const entry = cases[resource.value]?.[value];
		if (!entry) return [];
		return [
			{
				resource: resource.value,
				operation: value,
				resourceName: resource.name,
				operationName: operation.name,
				request: requestText(operation.requests),
				retried:
					operation.requests.length === 0
						? 'noRequest'
						: operation.repeatable
							? 'always'
							: 'after429',
				...entry,
			},
		];
	},
);

/** The Options every operation has, read once per execution (item 0): each invalid value on every operation. */
export const optionsInvalid: InvalidInput[] = [
	// text counts in decimal digits only: not hex, binary, octal or exponent notation
	...bad('options.concurrency', 'Concurrency', [0, 51, 'abc', '0x5', '1e1']),
	...bad('options.maxAttempts', 'Max Attempts', [0, 11, 2.5, '0b10', '0o3']),
	...bad('options.timeoutSeconds', 'Timeout (Seconds)', [0, 601, 'soon', '0x1E', '3e1']),
	...bad('options.maxWaitSeconds', 'Max Retry Wait (Seconds)', [-1, 601, 'never', '0x1', '1e1']),
	...bad('options.retryOnServerErrors', 'Retry on Server Errors', ['often', 42, {}]),
	...bad('options.retryOnRateLimit', 'Retry on Rate Limit', ['sometimes']),
].map((value) => ({ ...value, at: 0 }));

/** The node parameters of an entry's example. */
export function exampleParameters(entry: CatalogueEntry): INodeParameters {
	return { resource: entry.resource, operation: entry.operation, ...entry.example.parameters };
}

/** The valid parameters an entry's invalid cases start from. */
export function validParameters(entry: CatalogueEntry): INodeParameters {
	return {
		resource: entry.resource,
		operation: entry.operation,
		...(entry.validBase ?? entry.example.parameters),
	};
}
export const entryName = (entry: CatalogueEntry) => `${entry.resourceName} ${entry.operationName}`;
