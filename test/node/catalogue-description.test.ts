/**
 * The registry of operations (nodes/VoiceAi/actions/registry.ts) against the node's description, the
 * catalogue (harness/catalogue/), README.md's operations table and docs/operations.md's sections.
 * No n8n run: the node's description and its operation objects.
 */
import type { INodePropertyOptions } from 'n8n-workflow';
import { readFileSync } from 'node:fs';

import { allOperations, operationOf } from '../../nodes/VoiceAi/actions/registry';
import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node';
import {
	DOCS,
	README,
	docsHeading,
	docsSectionsProblem,
	operationsTable,
	tableIn,
} from '../../scripts/operations-table';
import { cases, catalogue } from '../../harness/catalogue';

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
const registered = allOperations().map(({ resource, value }) => `${resource.value}.${value}`);

/** A path of the registry (`/sip/{phone_number}`) as a pattern for the URL the sandbox saw. */
const urlPattern = (path: string) =>
	new RegExp(
		`^${path
			.split(/\{[^}]+\}/)
			.map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
			.join('[^/?]+')}(\\?.*)?$`,
	);

describe('the registry of operations', () => {
	it('is what the editor offers, with the same names, and what the router runs', () => {
		expect(offered().map(key)).toEqual(registered);
		expect(new Set(registered).size).toBe(registered.length);
		for (const { resource, value, operation } of allOperations()) {
			expect(operationOf(resource.value, value)).toBe(operation);
			expect(offered().find((entry) => key(entry) === `${resource.value}.${value}`)).toMatchObject({
				resourceName: resource.name,
				operationName: operation.name,
			});
		}
		expect(operationOf('agent', 'constructor')).toBeUndefined();
	});

	it('the subtitle names every operation as the dropdown does, in sentence case', () => {
		const { subtitle } = new VoiceAi().description;
		// The subtitle is one JavaScript expression over $parameter: evaluated as n8n would, on plain values.
		const evaluate = (parameter: Record<string, string>) =>
			new Function('$parameter', `return ${String(subtitle).slice(3, -2)}`)(parameter) as string;
		for (const { resource, operation, resourceName, operationName } of offered()) {
			const shown = evaluate({ resource, operation });
			expect(shown.toLowerCase()).toBe(`${operationName}: ${resourceName}`.toLowerCase());
			expect(shown[0]).toBe(operationName[0]);
		}
		expect(
			[
				['trustProduct', 'getAll'],
				['sip', 'update'],
				['conversation', 'passOnce'],
			].map(([resource, operation]) => evaluate({ resource, operation })),
		).toEqual(['Get many: trust product', 'Update: SIP', 'Pass once: conversation']);
		expect(evaluate({ resource: 'later', operation: 'newOne' })).toBe('newOne: later');
	});

	it.each(
		allOperations().map((entry) => [`${entry.resource.value}.${entry.value}`, entry] as const),
	)('%s: "changes data", retries and its requests agree', (_name, { operation }) => {
		const methods = operation.requests.map((request) => request.method);
		if (operation.changesData === false) {
			expect(operation.repeatable).toBe(true);
			expect(methods.filter((method) => method !== 'GET')).toEqual([]);
		} else {
			expect(methods.some((method) => method !== 'GET')).toBe(true);
		}
		if (!operation.repeatable) expect(operation.mayHaveApplied).toEqual(expect.any(String));
		expect(operation.requests.length === 0).toBe(operation.worksOn !== undefined);
	});
});

describe('the catalogue of operations', () => {
	it('has one entry per registered operation, and no other', () => {
		const written = Object.entries(cases).flatMap(([resource, operations]) =>
			Object.keys(operations).map((operation) => `${resource}.${operation}`),
		);
		const missing = registered.filter((name) => !written.includes(name));
		const unknown = written.filter((name) => !registered.includes(name));
		expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
		expect(catalogue.map(key)).toEqual(registered);
	});

	it.each(catalogue.map((entry) => [key(entry), entry] as const))(
		'%s: its example sends what the registry says; a change says what the sandbox then holds',
		(_name, entry) => {
			const operation = operationOf(entry.resource, entry.operation)!;
			expect(entry.example.holds !== undefined).toBe(operation.changesData !== false);
			if (operation.requests.length === 0) {
				expect(entry.example.sends).toEqual([]);
				return;
			}
			for (const sent of entry.example.sends)
				expect(
					operation.requests.some(
						(request) => request.method === sent.method && urlPattern(request.path).test(sent.url),
					),
				).toBe(true);
			for (const request of operation.requests.filter((request) => request.when === undefined))
				expect(
					entry.example.sends.some(
						(sent) => sent.method === request.method && urlPattern(request.path).test(sent.url),
					),
				).toBe(true);
		},
	);

	it('gives every operation invalid-input cases', () => {
		expect(catalogue.filter((entry) => entry.invalid.length === 0).map(key)).toEqual([]);
	});
});

describe('the docs of the operations', () => {
	it("README.md's operations table is the one scripts/operations-table.ts writes (npm run docs:operations)", () => {
		const readme = readFileSync(README, 'utf8');
		expect(() => tableIn(readme)).not.toThrow();
		if (tableIn(readme) !== operationsTable())
			throw new Error(
				"README.md's operations table differs from the registry: run npm run docs:operations",
			);
	});

	it('docs/operations.md has one section per operation, and none for an operation the node lacks', () => {
		expect(docsSectionsProblem(readFileSync(DOCS, 'utf8'))).toBeUndefined();
		expect(docsHeading(allOperations()[0])).toBe('### Agent → Create (changes data)');
	});
});
