/**
 * Runs the Voice AI Trigger the way n8n 2.40's CLI does, with n8n-core's real HookContext and
 * WebhookContext. The CLI's orchestration is not published as a library, so the few steps it takes
 * are written out here, each with the CLI function it mirrors:
 * - activation: ActiveWorkflowManager.addWebhooks -> WebhookService.createWebhookIfNotExists
 *   (checkExists, then create when it said false) with mode 'trigger', then the static data is saved;
 * - deactivation: ActiveWorkflowManager.deregisterWebhooks -> deleteWebhook with mode 'internal',
 *   activation 'update', then the static data is saved;
 * - restart: a new Workflow object built from the saved static data, activation 'init';
 * - "Listen for test event": TestWebhooks.needsWebhook builds the workflow with EMPTY static data
 *   (toWorkflow: staticData {}), registers with mode 'manual' and keeps the resulting static data
 *   with the registration; when the test ends, deactivateWebhooks puts it back and calls delete
 *   with mode 'internal', activation 'update';
 * - deliveries: LiveWebhooks/TestWebhooks -> WebhookHelpers.executeWebhook: the body is parsed by
 *   n8n's body parser (bad JSON: 422 before the node runs), then the node's webhook() runs in a
 *   WebhookContext and its workflowData starts a run in WorkflowExecute;
 * - a resource locator's list in the editor: DynamicNodeParametersService.getResourceLocatorResults
 *   builds a one-node workflow ('Temp-Node') from the node's current parameters and credentials and
 *   calls the listSearch method in a LoadOptionsContext, with the expression isolate held.
 * test/e2e/harness-fidelity.e2e.test.ts runs the same deliveries, publish, test listen and unpublish
 * through this harness and a real n8n of every line, and compares what the caller and the sandbox see.
 */
import 'reflect-metadata';

import { createHash, randomUUID } from 'crypto';
import express from 'express';
import type { Server } from 'http';
import type { AddressInfo } from 'net';
import { parse as parseQuery } from 'querystring';
import { createGunzip, createInflate } from 'zlib';
import {
	ExecutionLifecycleHooks,
	HookContext,
	LoadOptionsContext,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	INodeListSearchResult,
	IRunExecutionData,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	createRunExecutionData,
	jsonParse,
	NodeHelpers,
	sanitizeXmlName,
	Workflow,
} from 'n8n-workflow';

import { VoiceAiTrigger } from '../nodes/VoiceAiTrigger/VoiceAiTrigger.node';
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox';
import { SandboxAdmin } from './sandboxAdmin';
import { HarnessCredentialsHelper } from './engine';

export const TRIGGER_TYPE = 'n8n-nodes-voiceai.voiceAiTrigger';
export const TRIGGER_NAME = 'Voice AI Trigger';
const trigger = new VoiceAiTrigger();

export const nodeTypes: INodeTypes = {
	getByName: () => trigger,
	getByNameAndVersion: (type, version) => {
		if (type !== TRIGGER_TYPE) throw new Error(`unknown node type ${type}`);
		return NodeHelpers.getVersionedNodeType(trigger, version);
	},
	getKnownTypes: () => ({}),
};

/**
 * Each test starts a fresh process, as n8n after a restart: a user whose organization no other
 * workflow uses says so (the tests of that refusal set 'refuse').
 */
const GO_AHEAD: INodeParameters = { whenOwnerUnknown: 'listen' };

export interface TriggerSetup {
	baseUrl: string;
	apiKey: string;
	parameters?: INodeParameters;
	/** Where deliveries reach n8n; defaults to a placeholder when no receiver is running. */
	n8nBaseUrl?: string;
	workflowId?: string;
	/** The workflow's name, as n8n hands it to the node (ownership errors name it). */
	name?: string;
	/** The node's version in the workflow; default the one the editor gives a new node. */
	typeVersion?: number;
	/**
	 * n8n's id of the credential; default one per API key, as when each key has its own credential.
	 * Give two workflows the same id to share one credential (a key rotation changes `credential`).
	 */
	credentialId?: string;
}

/** One workflow holding one Voice AI Trigger, in an n8n that keeps its static data in `saved`. */
export class TriggerWorkflow {
	readonly workflowId: string;
	readonly name: string;
	readonly node: INode;
	/** The decrypted credential as n8n would hand it out; change it to rotate the key. */
	readonly credential: ICredentialDataDecryptedObject;
	private readonly credentialsHelper: HarnessCredentialsHelper;
	/** The workflow's static data as n8n's database holds it (saved after activation/deactivation). */
	saved: IWorkflowBase['staticData'] = {};
	/** The live production Workflow object while active. */
	live?: Workflow;
	/** Static data n8n keeps with a running test registration. */
	testRegistration?: Workflow['staticData'];
	n8nBaseUrl: string;

	constructor(setup: TriggerSetup) {
		this.workflowId = setup.workflowId ?? `wf_${randomUUID().slice(0, 8)}`;
		this.name = setup.name ?? 'Voice AI trigger test';
		this.credential = { baseUrl: setup.baseUrl, apiKey: setup.apiKey, authHeader: 'bearer' };
		this.credentialsHelper = new HarnessCredentialsHelper({ voiceAiApi: this.credential });
		this.n8nBaseUrl = setup.n8nBaseUrl ?? 'http://n8n.invalid:5678';
		this.node = {
			id: randomUUID(),
			name: TRIGGER_NAME,
			type: TRIGGER_TYPE,
			typeVersion: setup.typeVersion ?? (trigger as INodeType).description.defaultVersion ?? 1,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { ...GO_AHEAD, ...setup.parameters },
			credentials: {
				voiceAiApi: {
					id:
						setup.credentialId ??
						`cred_${createHash('sha256').update(setup.apiKey).digest('hex').slice(0, 8)}`,
					name: 'Voice AI account',
				},
			},
		};
	}

	get productionUrl(): string {
		return `${this.n8nBaseUrl}/webhook/${this.node.webhookId}/webhook`;
	}

	get testUrl(): string {
		return `${this.n8nBaseUrl}/webhook-test/${this.node.webhookId}/webhook`;
	}

	setParameters(parameters: INodeParameters): void {
		this.node.parameters = { ...GO_AHEAD, ...parameters };
	}

	additionalData(
		extra: Partial<IWorkflowExecuteAdditionalData> = {},
	): IWorkflowExecuteAdditionalData {
		return {
			credentialsHelper: this.credentialsHelper,
			webhookBaseUrl: `${this.n8nBaseUrl}/webhook`,
			webhookTestBaseUrl: `${this.n8nBaseUrl}/webhook-test`,
			webhookWaitingBaseUrl: `${this.n8nBaseUrl}/webhook-waiting`,
			formBaseUrl: `${this.n8nBaseUrl}/form`,
			formTestBaseUrl: `${this.n8nBaseUrl}/form-test`,
			formWaitingBaseUrl: `${this.n8nBaseUrl}/form-waiting`,
			mcpBaseUrl: `${this.n8nBaseUrl}/mcp`,
			mcpTestBaseUrl: `${this.n8nBaseUrl}/mcp-test`,
			restApiUrl: `${this.n8nBaseUrl}/rest`,
			instanceBaseUrl: this.n8nBaseUrl,
			variables: {},
			currentNodeExecutionIndex: 0,
			workflowId: this.workflowId,
			executeWorkflow: async () => {
				throw new Error('not used');
			},
			getRunExecutionData: async () => undefined,
			getRuntimeCredential: async () => undefined,
			logAiEvent: () => {},
			startRunnerTask: async () => {
				throw new Error('not used');
			},
			...extra,
		} as IWorkflowExecuteAdditionalData;
	}

	workflow(staticData: IWorkflowBase['staticData'], active: boolean): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: this.name,
			nodes: [this.node],
			connections: {},
			active,
			nodeTypes,
			staticData: jsonCopy(staticData ?? {}),
		});
	}

	webhookData(isTest: boolean): IWebhookData {
		const description = trigger.description.webhooks![0];
		return {
			httpMethod: 'POST',
			node: TRIGGER_NAME,
			path: `${this.node.webhookId}/webhook`,
			webhookDescription: description,
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: this.additionalData(),
			webhookId: this.node.webhookId,
			isTest,
		};
	}

	private hook(
		workflow: Workflow,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
		isTest: boolean,
	) {
		const webhookData = this.webhookData(isTest);
		return new HookContext(
			workflow,
			this.node,
			webhookData.workflowExecuteAdditionalData,
			mode,
			activation,
			webhookData,
		);
	}

	private async createIfNotExists(context: HookContext): Promise<boolean> {
		const methods = trigger.webhookMethods.default;
		const exists = await methods.checkExists.call(context);
		if (!exists) await methods.create.call(context);
		return !exists;
	}

	private saveStaticData(workflow: Workflow): void {
		this.saved = jsonCopy({ ...workflow.staticData });
	}

	/** Activation ('activate', 'update', ...) or a restart ('init'); tells whether create ran. */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<boolean> {
		const workflow = this.workflow(this.saved, true);
		const created = await this.createIfNotExists(this.hook(workflow, 'trigger', activation, false));
		this.saveStaticData(workflow);
		this.live = workflow;
		return created;
	}

	/** n8n going down: nothing runs, the database keeps what was saved. */
	stopProcess(): void {
		this.live = undefined;
	}

	async deactivate(): Promise<void> {
		const workflow = this.live ?? this.workflow(this.saved, true);
		this.live = undefined;
		await trigger.webhookMethods.default.delete.call(
			this.hook(workflow, 'internal', 'update', false),
		);
		this.saveStaticData(workflow);
	}

	async startTestListen(): Promise<void> {
		const workflow = this.workflow({}, false);
		await this.createIfNotExists(this.hook(workflow, 'manual', 'manual', true));
		this.testRegistration = jsonCopy({ ...workflow.staticData });
	}

	async endTestListen(): Promise<void> {
		const workflow = this.workflow({}, false);
		if (this.testRegistration) workflow.staticData = this.testRegistration;
		this.testRegistration = undefined;
		await trigger.webhookMethods.default.delete.call(
			this.hook(workflow, 'internal', 'update', true),
		);
	}

	/**
	 * What the editor's list of a resource locator shows: n8n posts the node's current parameters and
	 * credentials, and the CLI runs the node type's listSearch method on a stand-in node.
	 */
	async listSearch(
		method: string,
		filter?: string,
		paginationToken?: string,
		path = 'options.agentIds',
	): Promise<INodeListSearchResult> {
		const search = (trigger as INodeType).methods?.listSearch?.[method];
		if (typeof search !== 'function') throw new Error(`no listSearch method ${method}`);
		const tempNode: INode = {
			parameters: this.node.parameters,
			id: 'uuid-1234',
			name: 'Temp-Node',
			type: TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			credentials: this.node.credentials,
		};
		const workflow = new Workflow({ nodes: [tempNode], connections: {}, active: false, nodeTypes });
		const additionalData = this.additionalData({ currentNodeParameters: this.node.parameters });
		const context = new LoadOptionsContext(workflow, tempNode, additionalData, path);
		const acquired = await workflow.expression.acquireIsolate();
		try {
			return await search.call(context, filter, paginationToken);
		} finally {
			if (acquired) await workflow.expression.releaseIsolate();
		}
	}

	/** The workflow a delivery runs against: the live one, or the test listener's. */
	deliveryWorkflow(mode: 'production' | 'test'): Workflow | undefined {
		if (mode === 'production') {
			// LiveWebhooks builds a fresh Workflow from the database row for every request.
			return this.live ? this.workflow(this.saved, true) : undefined;
		}
		if (!this.testRegistration) return undefined;
		const workflow = this.workflow({}, false);
		workflow.setTestStaticData(this.testRegistration);
		return workflow;
	}
}

export interface Execution {
	flowId: string;
	mode: 'production' | 'test';
	items: INodeExecutionData[];
	run: IRun;
}

/** An HTTP server in the role of n8n's webhook endpoints for one or more trigger workflows. */
export class WebhookReceiver {
	readonly executions: Execution[] = [];
	readonly responses: { status: number; mode: 'production' | 'test' }[] = [];
	/**
	 * How many of the next executions n8n fails to store or queue after the node accepted the
	 * delivery: it then answers 500 (WebhookHelpers.executeWebhook when WorkflowRunner.run throws).
	 */
	failStarts = 0;
	private server?: Server;
	private workflows = new Map<string, TriggerWorkflow>();
	baseUrl = '';

	async start(): Promise<string> {
		const app = express();
		app.post('/:endpoint/:webhookId/webhook', (req, res) => {
			void this.handle(req, res).catch((error: Error) => {
				if (!res.headersSent) res.status(500).json({ message: error.message });
			});
		});
		await new Promise<void>((resolve) => {
			this.server = app.listen(0, '127.0.0.1', () => resolve());
		});
		this.baseUrl = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
		return this.baseUrl;
	}

	add(workflow: TriggerWorkflow): void {
		this.workflows.set(workflow.node.webhookId!, workflow);
	}

	async stop(): Promise<void> {
		await new Promise<void>((resolve) =>
			this.server ? this.server.close(() => resolve()) : resolve(),
		);
	}

	private async handle(req: express.Request, res: express.Response): Promise<void> {
		const mode =
			req.params.endpoint === 'webhook-test'
				? 'test'
				: req.params.endpoint === 'webhook'
					? 'production'
					: undefined;
		const owner = this.workflows.get(String(req.params.webhookId));
		const workflow = mode && owner?.deliveryWorkflow(mode);
		if (!mode || !owner || !workflow) {
			res.status(404).json({ message: 'The requested webhook is not registered' });
			return;
		}
		let started = false;
		const failStart = () => this.failStarts > 0 && this.failStarts-- > 0;
		const status = await runWebhook(owner, workflow, mode, req, res, failStart, (items, run) => {
			started = true;
			this.executions.push({ flowId: owner.workflowId, mode, items, run });
		});
		this.responses.push({ status, mode });
		// TestWebhooks.executeWebhook ends the test listen once a delivery started an execution;
		// refused or dropped deliveries leave it listening.
		if (mode === 'test' && started) await owner.endTestListen();
	}
}

/** rawBodyReader: a gzip or deflate body (Content-Encoding) is read decompressed. */
async function readRawBody(req: express.Request): Promise<Buffer> {
	const encoding = req.headers['content-encoding'];
	const stream =
		encoding === 'gzip'
			? req.pipe(createGunzip())
			: encoding === 'deflate'
				? req.pipe(createInflate())
				: req;
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

// xml2js comes with n8n-workflow (resolved from it: not a dependency of ours) and has no types of its
// own; n8n's parser, with its options.
const { Parser } = require(
	require.resolve('xml2js', { paths: [require.resolve('n8n-workflow')] }),
) as {
	Parser: new (options: object) => { parseStringPromise(text: string): Promise<unknown> };
};
const xmlParser = new Parser({
	async: true,
	normalize: true,
	normalizeTags: true,
	explicitArray: false,
	tagNameProcessors: [sanitizeXmlName],
	attrNameProcessors: [sanitizeXmlName],
});

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * n8n's body handling before the node (middlewares/body-parser.ts, webhook-helpers.ts
 * parseRequestBody): readRawBody reads the body once, on demand; a start node of version 1 has every
 * body read, from 1.1 on only JSON, text, form and XML ones; a JSON, form, XML or text body is parsed
 * into `body` (JSON and form without a byte-order mark), one n8n cannot parse answered 422 as
 * ResponseHelper.sendErrorResponse answers an UnprocessableRequestError. Not mirrored: multipart
 * (n8n's form parser). test/e2e/harness-fidelity.e2e.test.ts holds this to the real n8n.
 * Returns false when n8n answered.
 */
async function parseRequestBody(
	req: express.Request & { rawBody?: Buffer; readRawBody(): Promise<void> },
	res: express.Response,
	typeVersion: number,
): Promise<boolean> {
	req.readRawBody = async () => {
		req.rawBody ??= await readRawBody(req);
	};
	const [type, ...parameters] = (req.headers['content-type'] ?? '').split(';');
	const contentType = type.toLowerCase();
	if (contentType === 'multipart/form-data') throw new Error("n8n's form parser is not mirrored");
	const parsable =
		['application/json', 'text/plain', 'application/x-www-form-urlencoded'].some((t) =>
			contentType.startsWith(t),
		) ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml');
	if (typeVersion > 1 && !parsable) return true;
	await req.readRawBody();
	if (req.rawBody!.length === 0) return true;
	const charset = parameters.find((p) => p.trim().toLowerCase().startsWith('charset='));
	try {
		const text = req.rawBody!.toString(
			(charset?.split('=')[1].trim().toLowerCase() ?? 'utf-8') as BufferEncoding,
		);
		if (contentType === 'application/json') req.body = jsonParse(stripBom(text));
		else if (contentType === 'application/x-www-form-urlencoded')
			req.body = parseQuery(stripBom(text), undefined, undefined, { maxKeys: 1000 });
		else if (contentType === 'text/plain') req.body = text;
		else if (contentType.endsWith('/xml') || contentType.endsWith('+xml'))
			req.body = await xmlParser.parseStringPromise(text);
	} catch (error) {
		// UnprocessableRequestError as ResponseHelper.sendErrorResponse serializes it.
		const hint = (error as Error).message;
		res.status(422).json({ code: 422, message: 'Failed to parse request body', hint });
		return false;
	}
	return true;
}

/** WebhookHelpers.executeWebhook, reduced to what this trigger uses (responseMode onReceived or lastNode). */
async function runWebhook(
	owner: TriggerWorkflow,
	workflow: Workflow,
	mode: 'production' | 'test',
	req: express.Request,
	res: express.Response,
	failStart: () => boolean,
	started: (items: INodeExecutionData[], run: IRun) => void,
): Promise<number> {
	const request = req as express.Request & { rawBody?: Buffer; readRawBody(): Promise<void> };
	if (!(await parseRequestBody(request, res, owner.node.typeVersion))) return res.statusCode;
	const executionMode: WorkflowExecuteMode = mode === 'test' ? 'manual' : 'webhook';
	const additionalData = owner.additionalData({ httpRequest: request, httpResponse: res });
	const context = new WebhookContext(
		workflow,
		owner.node,
		additionalData,
		executionMode,
		{ ...owner.webhookData(mode === 'test'), workflowExecuteAdditionalData: additionalData },
		[],
		null,
	);
	const result: IWebhookResponseData = await (trigger as INodeType).webhook!.call(context);
	if (result.noWebhookResponse) return res.statusCode;
	if (result.workflowData === undefined) {
		res.status(200).json(result.webhookResponse ?? { message: 'Webhook call received' });
		return 200;
	}
	if (failStart()) {
		res.status(500).json({ code: 0, message: 'There was a problem executing the workflow' });
		return 500;
	}
	// WebhookHelpers.evaluateResponseOptions: responseMode and responseData of the description are
	// expressions of the node's parameters (n8n's defaults: onReceived, the text "firstEntryJson").
	const description = owner.webhookData(false).webhookDescription;
	const responseMode = workflow.expression.getSimpleParameterValue(
		owner.node,
		description.responseMode,
		executionMode,
		{},
		undefined,
		'onReceived',
	);
	const responseData = workflow.expression.getComplexParameterValue(
		owner.node,
		description.responseData,
		executionMode,
		{},
		undefined,
		'firstEntryJson',
	);
	if (responseMode === 'lastNode') {
		// After the run: "Error in workflow" with 500 when it failed; noData answers an empty 200.
		const run = await runWorkflow(workflow, owner, executionMode, result.workflowData);
		started(result.workflowData[0], run);
		if (run.data.resultData.error) res.status(500).json({ message: 'Error in workflow' });
		else if (responseData === 'noData') res.status(200).end();
		else res.status(200).json({ message: 'Workflow executed successfully' });
		return res.statusCode;
	}
	// extractWebhookOnReceivedResponse: responseData wins when set, then the node's webhookResponse.
	if (responseData === 'noData') res.status(200).end();
	else if (responseData) res.status(200).send(responseData);
	else res.status(200).json(result.webhookResponse ?? { message: 'Workflow was started' });
	const run = await runWorkflow(workflow, owner, executionMode, result.workflowData);
	started(result.workflowData[0], run);
	return 200;
}

/** The run n8n starts with the trigger's items (WebhookHelpers.prepareExecutionData + WorkflowRunner). */
async function runWorkflow(
	workflow: Workflow,
	owner: TriggerWorkflow,
	mode: WorkflowExecuteMode,
	workflowData: INodeExecutionData[][],
): Promise<IRun> {
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: owner.node, data: { main: workflowData }, source: null }],
		},
	});
	const hooks = new ExecutionLifecycleHooks(mode, randomUUID(), {
		id: owner.workflowId,
		name: 'Voice AI trigger test',
		active: true,
		nodes: [owner.node],
		connections: {},
		settings: {},
		createdAt: new Date(),
		updatedAt: new Date(),
		isArchived: false,
		activeVersionId: null,
	} as unknown as IWorkflowBase);
	const additionalData = owner.additionalData({ hooks } as Partial<IWorkflowExecuteAdditionalData>);
	return await new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(
		workflow,
	);
}

/** Static data goes through JSON on its way to the database (and to n8n's test-webhook cache). */
function jsonCopy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}

/** What a trigger suite works with: the sandbox, its admin API and, unless turned off, n8n's receiver. */
export interface TriggerHarness {
	readonly sandbox: Sandbox;
	readonly admin: SandboxAdmin;
	readonly receiver: WebhookReceiver;
	/** A trigger workflow on the sandbox (the first organization's key unless given), served by the receiver. */
	workflow(setup?: Partial<TriggerSetup>): TriggerWorkflow;
}

/**
 * Starts the sandbox (and a WebhookReceiver in n8n's role, unless `receiver: false`) in beforeAll and
 * stops them in afterAll. Read the fields inside tests and hooks: they are set once beforeAll ran.
 */
export function startTriggerHarness(
	options: { sandbox?: SandboxOptions; receiver?: boolean } = {},
): TriggerHarness {
	let started: { sandbox: Sandbox; admin: SandboxAdmin; receiver?: WebhookReceiver } | undefined;
	const get = () => {
		if (started === undefined) throw new Error('the trigger harness is read before beforeAll ran');
		return started;
	};
	beforeAll(async () => {
		const sandbox = await startSandbox(options.sandbox);
		const receiver = options.receiver === false ? undefined : new WebhookReceiver();
		await receiver?.start();
		started = { sandbox, admin: new SandboxAdmin(sandbox), receiver };
	});
	afterAll(async () => {
		await started?.receiver?.stop();
		await started?.sandbox.close();
	});
	return {
		get sandbox() {
			return get().sandbox;
		},
		get admin() {
			return get().admin;
		},
		get receiver() {
			const { receiver } = get();
			if (receiver === undefined) throw new Error('this trigger harness runs no receiver');
			return receiver;
		},
		workflow(setup = {}) {
			const { sandbox, receiver } = get();
			const flow = new TriggerWorkflow({
				baseUrl: sandbox.baseUrl,
				apiKey: sandbox.orgs[0].apiKey,
				n8nBaseUrl: receiver?.baseUrl,
				...setup,
			});
			receiver?.add(flow);
			return flow;
		},
	};
}
