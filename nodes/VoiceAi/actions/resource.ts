import type { INodeProperties } from 'n8n-workflow';

import type { VoiceAiOperation } from './types';

/** One resource of the Voice AI node: its dropdown entry and its operations. */
export interface VoiceAiResource {
	/** Stored in users' workflows, like each operation's key: never change one. */
	value: string;
	name: string;
	/**
	 * By operation value. The first is the one a new node shows; their fields come in this order; the
	 * dropdown sorts them by name.
	 */
	operations: Record<string, VoiceAiOperation>;
}

export function defineResource(resource: VoiceAiResource): VoiceAiResource {
	return resource;
}

/** The option's description: the operation's hint and, for one that changes data, the note saying so. */
export function optionDescription(operation: VoiceAiOperation): string {
	return operation.changesData === false
		? operation.hint
		: `${operation.hint} (${operation.changesData})`;
}

/** The resource's operations, sorted by name as the dropdown shows them. */
export function operationsByName(resource: VoiceAiResource): Array<[string, VoiceAiOperation]> {
	return Object.entries(resource.operations).sort(([, a], [, b]) => a.name.localeCompare(b.name));
}

/** The resource's Operation dropdown, then the fields of each of its operations. */
export function resourceProperties(resource: VoiceAiResource): INodeProperties[] {
	const [defaultOperation] = Object.keys(resource.operations);
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource.value] } },
			options: operationsByName(resource).map(([value, operation]) => ({
				name: operation.name,
				value,
				description: optionDescription(operation),
				action: operation.action,
			})),
			default: defaultOperation,
		},
		...Object.values(resource.operations).flatMap((operation) => operation.description),
	];
}
