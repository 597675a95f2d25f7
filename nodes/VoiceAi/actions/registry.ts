// The one list of resources and operations: node, router, README and docs use it.
import type { INodeProperties } from 'n8n-workflow';

import { agent } from './agent';
import { chatbot } from './chatbot';
import { contact } from './contact';
import { conversation } from './conversation';
import { sip } from './sip';
import { trustProduct } from './trustProduct';
import type { VoiceAiOperation, VoiceAiResource } from './types';
import { webhook } from './webhook';

/** In the Resource dropdown's order (alphabetical by name). */
export const resources = [agent, chatbot, contact, conversation, sip, trustProduct, webhook];

const byName = (resource: VoiceAiResource) =>
	Object.entries(resource.operations)
		.map(([value, operation]) => ({ resource, value, operation }))
		.sort((a, b) => a.operation.name.localeCompare(b.operation.name));

export const allOperations = () => resources.flatMap(byName);
export type RegisteredOperation = ReturnType<typeof byName>[number];

export function operationOf(resource: string, operation: string): VoiceAiOperation | undefined {
	const { operations } = resources.find((entry) => entry.value === resource) ?? {};
	return operations && Object.hasOwn(operations, operation) ? operations[operation] : undefined;
}

export const optionDescription = ({ summary, changesData }: VoiceAiOperation) =>
	changesData === false ? summary : `${summary} (${changesData})`;

export function resourceAndOperationProperties(): INodeProperties[] {
	const firstResource = resources[0].value;
	return [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: resources.map(({ name, value }) => ({ name, value })),
			default: firstResource,
		},
		...resources.flatMap((resource): INodeProperties[] => {
			const [firstOperation] = Object.keys(resource.operations);
			return [
				{
					displayName: 'Operation',
					name: 'operation',
					type: 'options',
					noDataExpression: true,
					displayOptions: { show: { resource: [resource.value] } },
					options: byName(resource).map(({ value, operation }) => ({
						name: operation.name,
						value,
						description: optionDescription(operation),
						action: operation.action,
					})),
					default: firstOperation,
				},
				// Each operation's fields show for it alone, besides any condition of their own.
				...Object.entries(resource.operations).flatMap(([value, { description }]) =>
					description.map(({ displayOptions: own, ...field }) => {
						const show = { resource: [resource.value], operation: [value], ...own?.show };
						return { ...field, displayOptions: { ...own, show } };
					}),
				),
			];
		}),
	];
}

/** "Trust Product" → "trust product"; SIP stays. */
const lower = (text: string) =>
	text.replace(/\S+/g, (word) => (word === word.toUpperCase() ? word : word.toLowerCase()));
const json = (entries: Array<[string, string]>) => JSON.stringify(Object.fromEntries(entries));

/**
 * The node's subtitle: "Get many: agent", "Update: SIP"; a value it does not know shows as it is.
 */
export function subtitleExpression(): string {
	const operationNames = json(
		allOperations().map(({ resource, value, operation: { name } }) => [
			`${resource.value}.${value}`,
			name[0] + lower(name).slice(1),
		]),
	);
	const resourceNames = json(resources.map(({ value, name }) => [value, lower(name)]));
	return `={{ ((${operationNames})[$parameter["resource"] + "." + $parameter["operation"]] || $parameter["operation"]) + ": " + ((${resourceNames})[$parameter["resource"]] || $parameter["resource"]) }}`;
}
