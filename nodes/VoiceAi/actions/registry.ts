// The one list of the action node's resources and operations. The node's description (dropdowns and
// subtitle), the router, the README's table and docs/operations.md's sections, and the tests that
// check them all come from here.
import type { INodeProperties } from 'n8n-workflow';

import { agent } from './agent';
import { chatbot } from './chatbot';
import { contact } from './contact';
import { conversation } from './conversation';
import type { VoiceAiResource } from './resource';
import { operationsByName, resourceProperties } from './resource';
import { sip } from './sip';
import { trustProduct } from './trustProduct';
import type { VoiceAiOperation } from './types';
import { webhook } from './webhook';

/** In the Resource dropdown's order (alphabetical by name). */
export const resources: VoiceAiResource[] = [
	agent,
	chatbot,
	contact,
	conversation,
	sip,
	trustProduct,
	webhook,
];

export interface RegisteredOperation {
	resource: VoiceAiResource;
	/** The operation's key in its resource: the `operation` parameter's value. */
	value: string;
	operation: VoiceAiOperation;
}

/** Every operation, by resource and then by name: the editor's order. */
export function allOperations(): RegisteredOperation[] {
	return resources.flatMap((resource) =>
		operationsByName(resource).map(([value, operation]) => ({ resource, value, operation })),
	);
}

export function operationOf(resource: string, operation: string): VoiceAiOperation | undefined {
	const found = resources.find((entry) => entry.value === resource);
	return found && Object.hasOwn(found.operations, operation)
		? found.operations[operation]
		: undefined;
}

/** The Resource dropdown, then each resource's Operation dropdown and fields. */
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
		...resources.flatMap(resourceProperties),
	];
}

/** "Trust Product" → "trust product"; words in capitals (SIP) stay as they are. */
const lower = (text: string) =>
	text.replace(/\S+/g, (word) => (word === word.toUpperCase() ? word : word.toLowerCase()));
const json = (entries: Array<[string, string]>) => JSON.stringify(Object.fromEntries(entries));

/**
 * The node's subtitle expression: "Get many: agent", "Update: SIP". A value the node does not know
 * (a workflow from a later version) shows as it is.
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
