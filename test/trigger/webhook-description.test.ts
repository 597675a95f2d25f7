/**
 * n8n 2.40 resolves a webhook description's fields from the node's parameters without its expression
 * engine only when each templated field declares a native resolver. Without them, every delivery
 * evaluates responseMode and responseData in the engine: with lazy isolate acquisition that builds an
 * isolate per delivery (4x the Webhook node's CPU, docs/trigger-performance.md). The resolvers must give
 * what n8n's engine gives for the same template.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import {
	resolveWebhookDescriptionField,
	webhookDescriptionIsNativelyResolvable,
	Workflow,
} from 'n8n-workflow';

import { VoiceAiTrigger } from '../../nodes/VoiceAiTrigger/VoiceAiTrigger.node';
import { nodeTypes, TRIGGER_NAME, TRIGGER_TYPE } from '../../harness/triggerWorkflow';

const description = new VoiceAiTrigger().description.webhooks![0];

function nodeWith(parameters: INodeParameters): INode {
	return {
		id: 'trigger',
		name: TRIGGER_NAME,
		type: TRIGGER_TYPE,
		typeVersion: 1.1,
		position: [0, 0],
		parameters,
	};
}

it("n8n finds every field of the trigger's webhook description resolvable without its engine", () => {
	expect(webhookDescriptionIsNativelyResolvable(description)).toBe(true);
});

describe.each([
	['not set (the default)', {}],
	['When Received', { respondWhen: 'onReceived' }],
	['When the Workflow Has Finished', { respondWhen: 'lastNode' }],
])('Answer the Service %s', (_label, parameters: INodeParameters) => {
	const workflow = new Workflow({
		nodes: [nodeWith(parameters)],
		connections: {},
		active: true,
		nodeTypes,
	});
	// The Workflow constructor applies the node's defaults, as in n8n.
	const node = workflow.getNode(TRIGGER_NAME)!;

	it('responseMode: natively resolved, the same value as the engine gives', () => {
		const native = resolveWebhookDescriptionField(node, description, 'responseMode');
		const engine = workflow.expression.getSimpleParameterValue(
			node,
			description.responseMode,
			'webhook',
			{},
			undefined,
			'onReceived',
		);
		expect(native).toEqual({ resolved: true, value: engine });
		expect(['onReceived', 'lastNode']).toContain(engine);
	});

	it('responseData: natively resolved, the same value as the engine gives', () => {
		const native = resolveWebhookDescriptionField(node, description, 'responseData');
		const engine = workflow.expression.getComplexParameterValue(
			node,
			description.responseData,
			'webhook',
			{},
			undefined,
			'firstEntryJson',
		);
		expect(native).toEqual({ resolved: true, value: engine });
	});
});
