/** One node run in n8n-core's WorkflowExecute, behind an input node that emits the given items. */
import 'reflect-metadata';
import { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type { IExecuteFunctions, INode, INodeExecutionData, INodeType, IRun } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { createAdditionalData } from './credentials';
import { INPUT_TYPE, PACKAGE, nodeTypeRegistry, nodeTypes, resolveTypeName } from './registry';
import type { InputItem, RunNodeOptions, RunNodeResult } from './types';

// n8n-core has its own copy of @n8n/di: its services live in that copy's container.
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

let binaryReady: Promise<void> | undefined;
async function ensureBinaryData(): Promise<void> {
	binaryReady ??= Container.get(BinaryDataService).init();
	await binaryReady;
}

function inputNodeType(items: InputItem[]): INodeType {
	return {
		description: {
			displayName: 'Harness Input',
			name: INPUT_TYPE,
			group: ['input'],
			version: 1,
			description: 'Emits the items given to runNode',
			defaults: { name: 'Input' },
			inputs: [],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			const out: INodeExecutionData[] = [];
			for (const [index, item] of items.entries()) {
				const entry: INodeExecutionData = { json: item.json ?? {}, pairedItem: { item: 0 } };
				for (const [property, file] of Object.entries(item.binary ?? {})) {
					const buffer = typeof file.data === 'string' ? Buffer.from(file.data) : file.data;
					entry.binary ??= {};
					entry.binary[property] = file.inline
						? { data: buffer.toString('base64'), mimeType: file.mimeType, fileName: file.fileName }
						: await this.helpers.prepareBinaryData(buffer, file.fileName, file.mimeType);
				}
				out[index] = entry;
			}
			return [out];
		},
	};
}

/**
 * The workflow `[input, node]` (Input connected to the node) run in WorkflowExecute from Input to the
 * node; `id` names the workflow and its execution. Cancel the promise to stop the run as n8n's Stop does.
 */
export function runFromInput(
	id: string,
	[input, node]: [INode, INode],
	types: Workflow['nodeTypes'],
	credentials: Parameters<typeof createAdditionalData>[0],
	mode: WorkflowExecute['mode'],
): ReturnType<WorkflowExecute['run']> {
	const workflowData = {
		id,
		name: id,
		nodes: [input, node],
		connections: {
			[input.name]: { main: [[{ node: node.name, type: 'main' as const, index: 0 }]] },
		},
		active: false,
		settings: { executionOrder: 'v1' as const },
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes: types });
	const hooks = new ExecutionLifecycleHooks(mode, `${id}-${Date.now()}`, {
		...workflowData,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const execution = new WorkflowExecute(createAdditionalData(credentials, hooks), mode);
	return execution.run({
		workflow,
		startNode: input,
		destinationNode: { nodeName: node.name, mode: 'inclusive' },
	});
}

/** Runs one node after an input node that emits `items`, through n8n-core's WorkflowExecute. */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	await ensureBinaryData();
	const items = options.items ?? [{ json: {} }];
	const extra = { ...options.nodeTypes, [INPUT_TYPE]: inputNodeType(items) };
	const types = nodeTypeRegistry(extra);
	const typeName = resolveTypeName(options.nodeType ?? `${PACKAGE}.voiceAi`, {
		...nodeTypes,
		...extra,
	});
	const nodeType = types.getByName(typeName);
	const versions: number | number[] =
		'nodeVersions' in nodeType
			? nodeType.currentVersion
			: (nodeType as INodeType).description.version;
	const typeVersion =
		options.typeVersion ?? (Array.isArray(versions) ? Math.max(...versions) : versions);
	const credentials = options.credentials ?? {};
	const nodeName = options.nodeName ?? 'Voice AI';

	const input: INode = {
		id: 'input',
		name: 'Input',
		type: INPUT_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const node: INode = {
		id: 'under-test',
		name: nodeName,
		type: typeName,
		typeVersion,
		position: [200, 0],
		parameters: options.parameters ?? {},
		credentials: Object.fromEntries(
			Object.keys(credentials).map((type) => [
				type,
				{ id: `cred-${type}`, name: `${type} account` },
			]),
		),
	};
	if (options.continueOnFail) node.onError = 'continueRegularOutput';
	Object.assign(node, options.settings);

	let run: IRun;
	try {
		run = await runFromInput(
			'harness',
			[input, node],
			types,
			credentials,
			options.mode ?? 'manual',
		);
	} catch (caught) {
		// n8n refuses to start a workflow whose nodes have issues (e.g. a required parameter left empty).
		return { items: [], outputs: [], error: caught as RunNodeResult['error'] };
	}

	const task = run.data.resultData.runData[nodeName]?.[0];
	const outputs = (task?.data?.main ?? []).map((output) => output ?? []);
	const error = (task?.error ?? run.data.resultData.error) as RunNodeResult['error'];
	return { items: error ? [] : (outputs[0] ?? []), outputs, error, run };
}
