/**
 * Runs nodes inside n8n-core's real WorkflowExecute, without a whole n8n: the engine, parameter and
 * expression resolution, `httpRequestWithAuthentication`, credential `authenticate` blocks, binary
 * data, continueOnFail and pairedItem all behave as in n8n. Nothing here mocks IExecuteFunctions.
 *
 * API
 *   runNode(options) → Promise<{ items, outputs, error, run }>
 *     options.nodeType     node type name, default 'n8n-nodes-voiceai.voiceAi' (also: 'voiceAi')
 *     options.parameters   the node's parameters as in a workflow file
 *     options.credentials  { voiceAiApi: { baseUrl, apiKey, authHeader? } } (defaults applied as n8n does)
 *     options.items        input items: { json, binary?: { prop: { data: Buffer|string, mimeType, fileName? } } }
 *                          (default: one empty item); binary goes through `prepareBinaryData` like a Read File node,
 *                          or stays in the item as base64 with `inline: true` (n8n's memory binary mode)
 *     options.continueOnFail  sets the node's onError to 'continueRegularOutput'
 *     options.settings     the node's Settings as a workflow file holds them: onError, retryOnFail, maxTries,
 *                          waitBetweenTries, alwaysOutputData, executeOnce (override continueOnFail)
 *     options.nodeTypes    extra node types { 'pkg.name': instance } (e.g. n8n's HTTP Request node)
 *     options.typeVersion  version of the node under test (default: its latest)
 *     → items    the node's first output (what the next node would get), [] when it failed
 *       outputs  every output of the node (with onError 'continueErrorOutput', [1] is the error output)
 *       error    the node's error as n8n records it (a plain object: name 'NodeApiError' / 'NodeOperationError',
 *                message, description, httpCode, context.itemIndex ...) when it failed, else undefined
 *       run      the whole IRun, for anything else (absent when n8n refused to start the workflow because
 *                the node has issues, e.g. a required parameter left empty: then `error` is that WorkflowHasIssuesError)
 *
 *   testCredential(type, data) → Promise<{ status: 'OK' | 'Error', message }>
 *     Runs a credential type's `test.request` as n8n's CredentialsTester does (a RoutingNode inside an
 *     ExecuteContext), e.g. testCredential('voiceAiApi', { baseUrl, apiKey }).
 *
 *   nodeTypes / credentialTypes   the registries used (add to them to run other packages' types).
 *   createAdditionalData(credentials, hooks?)   the additionalData runNode gives WorkflowExecute.
 *   HarnessCredentialsHelper      the credentials helper (n8n's generic-authenticate logic).
 *
 * The credentials helper mirrors n8n's own (packages/cli credentials-helper.ts): generic authenticate
 * blocks are resolved with `$credentials` through the workflow's expression engine, header names included.
 */
import 'reflect-metadata';

import {
	BinaryDataService,
	Cipher,
	ExecuteContext,
	ExecutionLifecycleHooks,
	RoutingNode,
	WorkflowExecute,
	getAdditionalKeys,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	Workflow as WorkflowType,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	createEmptyRunExecutionData,
} from 'n8n-workflow';

import { VoiceAiApi } from '../../credentials/VoiceAiApi.credentials';
import { VoiceAiSipLoginApi } from '../../credentials/VoiceAiSipLoginApi.credentials';
import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node';

// n8n-core has its own copy of @n8n/di: its services live in that copy's container.
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

export const PACKAGE = 'n8n-nodes-voiceai';

export type AnyNodeType = INodeType | IVersionedNodeType;

export const nodeTypes: Record<string, AnyNodeType> = {
	[`${PACKAGE}.voiceAi`]: new VoiceAi(),
};

export const credentialTypes: Record<string, ICredentialType> = {
	voiceAiApi: new VoiceAiApi(),
	voiceAiSipLoginApi: new VoiceAiSipLoginApi(),
};

export interface BinaryInput {
	data: Buffer | string;
	mimeType: string;
	fileName?: string;
	/** Keep the file in the item as base64, as n8n's memory binary mode does, instead of storing it. */
	inline?: boolean;
}

export interface InputItem {
	json?: IDataObject;
	binary?: Record<string, BinaryInput>;
}

/** The node's Settings tab, as n8n stores them on the node. */
export type NodeSettings = Partial<
	Pick<
		INode,
		| 'onError'
		| 'retryOnFail'
		| 'maxTries'
		| 'waitBetweenTries'
		| 'alwaysOutputData'
		| 'executeOnce'
		| 'continueOnFail'
	>
>;

export interface RunNodeOptions {
	nodeType?: string;
	typeVersion?: number;
	parameters?: INodeParameters;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	items?: InputItem[];
	continueOnFail?: boolean;
	settings?: NodeSettings;
	nodeTypes?: Record<string, AnyNodeType>;
	/** Name of the node under test in the workflow (default 'Voice AI'). */
	nodeName?: string;
}

export interface RunNodeResult {
	items: INodeExecutionData[];
	outputs: INodeExecutionData[][];
	error?: Error & {
		httpCode?: string | null;
		description?: string | null;
		context?: IDataObject;
		errorResponse?: IDataObject;
	};
	/** Absent when n8n refused to start the workflow (WorkflowHasIssuesError in `error`). */
	run?: IRun;
}

const INPUT_TYPE = 'harness.input';

function resolveTypeName(name: string, registry: Record<string, AnyNodeType>): string {
	if (registry[name]) return name;
	if (registry[`${PACKAGE}.${name}`]) return `${PACKAGE}.${name}`;
	throw new Error(
		`harness: unknown node type "${name}" (known: ${Object.keys(registry).join(', ')})`,
	);
}

function nodeTypeRegistry(extra: Record<string, AnyNodeType>): INodeTypes {
	const all = { ...nodeTypes, ...extra };
	return {
		getByName: (name) => all[resolveTypeName(name, all)],
		getByNameAndVersion: (name, version) =>
			NodeHelpers.getVersionedNodeType(all[resolveTypeName(name, all)], version),
		getKnownTypes: () => ({}),
	};
}

/** The stand-in node (and its type) n8n resolves credential expressions against. */
const CREDENTIAL_NODE: INode = {
	id: 'credential',
	name: '',
	typeVersion: 1,
	type: 'mock',
	position: [0, 0],
	parameters: {},
};
const CREDENTIAL_NODE_TYPE = { description: { properties: [] } } as unknown as INodeType;
const credentialNodeTypes: INodeTypes = {
	getByName: () => CREDENTIAL_NODE_TYPE,
	getByNameAndVersion: () => CREDENTIAL_NODE_TYPE,
	getKnownTypes: () => ({}),
};

export class HarnessCredentialsHelper extends ICredentialsHelper {
	/** Each credential as n8n keeps it in its database: encrypted (AES-256-CBC with the instance's key). */
	private readonly sealed = new Map<string, { plain: string; sealed: string }>();

	constructor(private readonly store: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	/** Sealed again whenever a test has changed the credential in the store (e.g. a rotated key). */
	private sealedData(type: string): string {
		const data = this.store[type];
		if (!data) throw new Error(`harness: no credentials of type "${type}" were given`);
		const plain = JSON.stringify(data);
		let entry = this.sealed.get(type);
		if (entry?.plain !== plain) {
			entry = { plain, sealed: Container.get(Cipher).encrypt(plain) };
			this.sealed.set(type, entry);
		}
		return entry.sealed;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: WorkflowType,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incoming as IHttpRequestOptions;
		const credentialType = credentialTypes[typeName];
		const { authenticate } = credentialType ?? {};
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate && typeof authenticate === 'object') {
			if (!workflow || !node)
				throw new Error('Workflow and node are required for declarative credential authentication');
			requestOptions.headers ??= {};
			if (authenticate.type === 'generic') {
				const resolve = (value: unknown): unknown => {
					if (typeof value !== 'string' || !value.startsWith('=')) return value;
					const result = workflow.expression.getSimpleParameterValue(
						node,
						value,
						'internal',
						{ $credentials: credentials },
						undefined,
						'',
					);
					return result ? String(result) : '';
				};
				for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
					const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
					target[outerKey] ??= {};
					for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
						target[outerKey][String(resolve(key))] = resolve(value);
					}
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		throw new Error(
			`harness: getCredentials(${type}, ${nodeCredentials.name}) is not available; use getDecrypted`,
		);
	}

	/**
	 * What n8n's credentials helper does on every call: decrypt the stored data, apply the type's defaults
	 * and resolve expressions in the credential's fields. n8n also reads the row from its database and
	 * looks up the data key each time; the harness leaves those out and decrypts with the instance key.
	 */
	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = JSON.parse(
			Container.get(Cipher).decrypt(this.sealedData(type)),
		) as INodeParameters;
		const data = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			stored,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		const workflow = new Workflow({
			nodes: [CREDENTIAL_NODE],
			connections: {},
			active: false,
			nodeTypes: credentialNodeTypes,
		});
		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		await workflow.expression.acquireIsolate();
		try {
			return workflow.expression.getComplexParameterValue(
				CREDENTIAL_NODE,
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as ICredentialDataDecryptedObject;
		} finally {
			await workflow.expression.releaseIsolate();
		}
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return credentialTypes[type]?.properties ?? [];
	}
}

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

/** The IWorkflowExecuteAdditionalData runNode uses (credentials by type), for tests that build their own contexts. */
export function createAdditionalData(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	const base = {
		credentialsHelper: new HarnessCredentialsHelper(credentials),
		hooks,
		executeWorkflow: async () => {
			throw new Error('harness: sub-workflows are not supported');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('harness: task runners are disabled');
		},
	};
	return base as unknown as IWorkflowExecuteAdditionalData;
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

	const workflowData = {
		id: 'harness',
		name: 'harness',
		nodes: [input, node],
		connections: { Input: { main: [[{ node: nodeName, type: 'main' as const, index: 0 }]] } },
		active: false,
		settings: { executionOrder: 'v1' as const },
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes: types });
	const hooks = new ExecutionLifecycleHooks('manual', `harness-${Date.now()}`, {
		...workflowData,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const execution = new WorkflowExecute(createAdditionalData(credentials, hooks), 'manual');
	let run: IRun;
	try {
		run = await execution.run({
			workflow,
			startNode: input,
			destinationNode: { nodeName, mode: 'inclusive' },
		});
	} catch (caught) {
		// n8n refuses to start a workflow whose nodes have issues (e.g. a required parameter left empty).
		return { items: [], outputs: [], error: caught as RunNodeResult['error'] };
	}

	const task = run.data.resultData.runData[nodeName]?.[0];
	const outputs = (task?.data?.main ?? []).map((output) => output ?? []);
	const error = (task?.error ?? run.data.resultData.error) as RunNodeResult['error'];
	return { items: error ? [] : (outputs[0] ?? []), outputs, error, run };
}

/** Runs a credential type's test request the way n8n's CredentialsTester does. */
export async function testCredential(
	type: string,
	data: ICredentialDataDecryptedObject,
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const credentialType = credentialTypes[type];
	if (!credentialType?.test)
		throw new Error(`harness: credential type "${type}" has no test request`);
	// n8n's tester applies the type's defaults to what the form sent, as for a stored credential.
	const decrypted = NodeHelpers.getNodeParameters(
		credentialType.properties,
		data as INodeParameters,
		true,
		false,
		null,
		null,
	) as ICredentialDataDecryptedObject;
	const testType: INodeType = {
		description: {
			displayName: 'Credential Test',
			name: 'harness.credentialTest',
			group: ['input'],
			version: 1,
			description: 'Runs a credential test request',
			defaults: { name: 'Temp-Node' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: type, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: credentialType.test.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'harness.credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [type]: { id: 'cred-test', name: 'credential under test' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: nodeTypeRegistry({ 'harness.credentialTest': testType }),
	});
	const additionalData = createAdditionalData({ [type]: decrypted });
	additionalData.currentNodeParameters = node.parameters;
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createEmptyRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(context, testType, {
		id: 'cred-test',
		name: 'credential under test',
		type,
		data: decrypted,
	});
	try {
		await workflow.expression.acquireIsolate();
		await routingNode.runNode();
	} catch (caught) {
		const error = caught as Error & {
			cause?: { response?: { status: number; statusText?: string }; code?: string };
		};
		if (error.cause?.response) {
			const { status, statusText } = error.cause.response;
			for (const rule of credentialType.test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status)
					return { status: 'Error', message: rule.properties.message };
			}
			return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		}
		if (error.cause?.code) return { status: 'Error', message: error.cause.code };
		return { status: 'Error', message: String(error.message) };
	} finally {
		await workflow.expression.releaseIsolate();
	}
	return { status: 'OK', message: 'Connection successful!' };
}
