/** Credentials as n8n resolves, seals and tests them: n8n's generic authenticate logic. */
import 'reflect-metadata';
import {
	Cipher,
	ExecuteContext,
	ExecutionLifecycleHooks,
	RoutingNode,
	getAdditionalKeys,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
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
import { credentialProperties, credentialTypes, nodeTypeRegistry } from './registry';

// n8n-core has its own copy of @n8n/di: its services live in that copy's container.
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

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
		return credentialProperties(type);
	}
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
		credentialProperties(type),
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
