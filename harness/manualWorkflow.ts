/**
 * Workflows the e2e suites run as "Execute workflow" does: a manual trigger, then a chain of nodes
 * (Voice AI nodes, and Code nodes that make their input items).
 */
import type { InputItem } from './engine';
import type { CredentialRef, WorkflowJson } from './n8n';

export const START = 'Start';

type Node = WorkflowJson['nodes'][number];

/** The credential a Voice AI node names; `N8nApi.importWorkflow` points it at a real one. */
const VOICE_AI_CREDENTIAL: CredentialRef = { id: 'voiceai-credential', name: 'Voice AI account' };

export function voiceAiNode(
	name: string,
	parameters: Record<string, unknown>,
	credentials: Record<string, CredentialRef> = { voiceAiApi: VOICE_AI_CREDENTIAL },
): Node {
	return {
		name,
		type: 'n8n-nodes-voiceai.voiceAi',
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials,
	};
}

export function codeNode(name: string, jsCode: string): Node {
	return {
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [0, 0],
		parameters: { jsCode },
	};
}

/** A Code node that returns these items, their files as base64 binary properties. */
export function itemsNode(name: string, items: InputItem[]): Node {
	const returned = items.map(({ json = {}, binary }) => ({
		json,
		...(binary && {
			binary: Object.fromEntries(
				Object.entries(binary).map(([property, { data, mimeType, fileName }]) => [
					property,
					{ data: Buffer.from(data).toString('base64'), mimeType, fileName },
				]),
			),
		}),
	}));
	return codeNode(name, `return ${JSON.stringify(returned)};`);
}

/** n8n's Manual Trigger, named `START`, at the left edge. */
export function manualTrigger(): Node {
	return {
		name: START,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

/** The manual trigger `START`, then each node in turn, laid out from left to right. */
export function chain(name: string, nodes: Node[]): WorkflowJson {
	const all: Node[] = [
		manualTrigger(),
		...nodes.map((node, index) => ({ ...node, position: [220 * (index + 1), 0] })),
	];
	const connections: WorkflowJson['connections'] = {};
	for (let i = 0; i + 1 < all.length; i++)
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	return { name, nodes: all, connections, settings: { executionOrder: 'v1' } };
}
