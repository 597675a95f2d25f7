/**
 * Runs the Voice AI Trigger as n8n 2.40's CLI does, in n8n-core's HookContext, WebhookContext and
 * LoadOptionsContext: only the CLI steps the engine suites take, each named. The real-n8n suites
 * cover the rest (the run a delivery starts; compressed, multipart and XML bodies; charsets), and
 * test/e2e/harness-fidelity.e2e.test.ts holds these steps to a real n8n of every line.
 */
import 'reflect-metadata';

import { createHash, randomUUID } from 'crypto';
import { once } from 'events';
import express, { type Request, type Response } from 'express';
import type { Server } from 'http';
import type { AddressInfo } from 'net';
import * as core from 'n8n-core';
import * as n8n from 'n8n-workflow';
import { parse as parseQuery } from 'querystring';

import { VoiceAiTrigger } from '../nodes/VoiceAiTrigger/VoiceAiTrigger.node';
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox';
import { createAdditionalData, nodeTypeRegistry } from './engine';
import { SandboxAdmin } from './sandboxAdmin';

export const TRIGGER_TYPE = 'n8n-nodes-voiceai.voiceAiTrigger';
export const TRIGGER_NAME = 'Voice AI Trigger';
const trigger = new VoiceAiTrigger();
const methods = trigger.webhookMethods.default;
const description = trigger.description.webhooks![0];
export const nodeTypes = nodeTypeRegistry({ [TRIGGER_TYPE]: trigger });

type Mode = 'production' | 'test';
const NOT_REGISTERED = { message: 'The requested webhook is not registered' };
const RUN_FAILED = { code: 0, message: 'There was a problem executing the workflow' };
type WebhookRequest = Request & { rawBody?: Buffer; readRawBody(): Promise<void> };
export type Execution = { flowId: string; mode: Mode; items: n8n.INodeExecutionData[] };

export interface TriggerSetup {
	baseUrl: string;
	apiKey: string;
	/** Each test is a fresh n8n process: If n8n Cannot Tell is Go Ahead unless given. */
	parameters?: n8n.INodeParameters;
	n8nBaseUrl?: string;
	name?: string;
	typeVersion?: number;
	credentialId?: string;
}

/** One workflow holding one Voice AI Trigger, in an n8n that keeps its static data in `saved`. */
export class TriggerWorkflow {
	readonly workflowId = `wf_${randomUUID().slice(0, 8)}`;
	readonly name: string;
	readonly node: n8n.INode;
	/** The decrypted credential n8n hands out; change it to rotate the key. */
	readonly credential: n8n.ICredentialDataDecryptedObject;
	/** The static data in n8n's database, saved after each publish and unpublish. */
	saved: n8n.IDataObject = {};
	/** The Workflow while published (none once n8n stops), and a test listen's static data. */
	live?: n8n.Workflow;
	testRegistration?: n8n.IDataObject;
	n8nBaseUrl: string;

	constructor(setup: TriggerSetup) {
		this.name = setup.name ?? 'Voice AI trigger test';
		this.credential = { baseUrl: setup.baseUrl, apiKey: setup.apiKey, authHeader: 'bearer' };
		this.n8nBaseUrl = setup.n8nBaseUrl ?? 'http://n8n.invalid:5678';
		const keyHash = createHash('sha256').update(setup.apiKey).digest('hex');
		const credentialId = setup.credentialId ?? `cred_${keyHash.slice(0, 8)}`;
		this.node = {
			id: randomUUID(),
			name: TRIGGER_NAME,
			type: TRIGGER_TYPE,
			typeVersion: setup.typeVersion ?? trigger.description.defaultVersion ?? 1,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: {},
			credentials: { voiceAiApi: { id: credentialId, name: 'Voice AI account' } },
		};
		this.setParameters(setup.parameters ?? {});
	}

	get productionUrl(): string {
		return `${this.n8nBaseUrl}/webhook/${this.node.webhookId}/webhook`;
	}

	get testUrl(): string {
		return `${this.n8nBaseUrl}/webhook-test/${this.node.webhookId}/webhook`;
	}

	setParameters(parameters: n8n.INodeParameters): void {
		this.node.parameters = { whenOwnerUnknown: 'listen', ...parameters };
	}

	additionalData(extra: object = {}): n8n.IWorkflowExecuteAdditionalData {
		return {
			...createAdditionalData({ voiceAiApi: this.credential }),
			webhookBaseUrl: `${this.n8nBaseUrl}/webhook`,
			webhookTestBaseUrl: `${this.n8nBaseUrl}/webhook-test`,
			...extra,
		};
	}

	/** The Workflow n8n builds from its database row; a test registration's is inactive. */
	workflow(staticData: n8n.IDataObject | undefined, active: boolean): n8n.Workflow {
		const [id, name, nodes, connections] = [this.workflowId, this.name, [this.node], {}];
		const data = jsonCopy(staticData);
		return new n8n.Workflow({ id, name, nodes, connections, active, nodeTypes, staticData: data });
	}

	/** WebhookService.createWebhookIfNotExists (checkExists, create if false), or deleteWebhook. */
	private async hook(
		method: 'create' | 'delete',
		workflow: n8n.Workflow,
		[mode, activation]: [n8n.WorkflowExecuteMode, n8n.WorkflowActivateMode],
	): Promise<boolean> {
		const extra = this.additionalData();
		const webhook = webhookData(workflow);
		const context = new core.HookContext(workflow, this.node, extra, mode, activation, webhook);
		const exists = method === 'create' && (await methods.checkExists.call(context));
		if (!exists) await methods[method].call(context);
		return !exists;
	}

	/** ActiveWorkflowManager.addWebhooks ('init': a restart), then the static data is saved. */
	async activate(activation: n8n.WorkflowActivateMode = 'activate'): Promise<boolean> {
		const workflow = this.workflow(this.saved, true);
		const created = await this.hook('create', workflow, ['trigger', activation]);
		this.saved = jsonCopy(workflow.staticData);
		this.live = workflow;
		return created;
	}

	/** ActiveWorkflowManager.deregisterWebhooks: delete, then the static data is saved. */
	async deactivate(): Promise<void> {
		const workflow = this.live ?? this.workflow(this.saved, true);
		this.live = undefined;
		await this.hook('delete', workflow, ['internal', 'update']);
		this.saved = jsonCopy(workflow.staticData);
	}

	/** TestWebhooks.needsWebhook: EMPTY static data; the result is kept with the registration. */
	async startTestListen(): Promise<void> {
		const workflow = this.workflow({}, false);
		await this.hook('create', workflow, ['manual', 'manual']);
		this.testRegistration = jsonCopy(workflow.staticData);
	}

	/** TestWebhooks.deactivateWebhooks: delete with the registration's static data. */
	async endTestListen(): Promise<void> {
		const workflow = this.workflow(this.testRegistration, false);
		this.testRegistration = undefined;
		await this.hook('delete', workflow, ['internal', 'update']);
	}

	/** DynamicNodeParametersService.getResourceLocatorResults: the method on a stand-in node. */
	async listSearch(method: string, filter?: string): Promise<n8n.INodeListSearchResult> {
		const node = { ...this.node, id: 'uuid-1234', name: 'Temp-Node', typeVersion: 1 };
		const workflow = new n8n.Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		const additionalData = this.additionalData({ currentNodeParameters: node.parameters });
		const context = new core.LoadOptionsContext(workflow, node, additionalData, 'options.agentIds');
		const search = trigger.methods.listSearch[method as 'searchAgents'];
		return await workflow.expression.withIsolate(async () => await search.call(context, filter));
	}

	/** WebhookHelpers.executeWebhook up to the node's answer: the body parsed, then webhook(). */
	async webhook(workflow: n8n.Workflow, req: WebhookRequest, res: Response) {
		if (!(await parseBody(req, res, this.node.typeVersion))) return { noWebhookResponse: true };
		const extra = this.additionalData({ httpRequest: req, httpResponse: res });
		const how = workflow.active ? 'webhook' : 'manual';
		const webhook = webhookData(workflow);
		const context = new core.WebhookContext(workflow, this.node, extra, how, webhook, [], null);
		return (await trigger.webhook.call(context)) as n8n.IWebhookResponseData;
	}

	/** The Workflow a delivery runs in: LiveWebhooks builds one per request, TestWebhooks its own. */
	deliveryWorkflow(endpoint: string): n8n.Workflow | undefined {
		if (endpoint === 'webhook') return this.live && this.workflow(this.saved, true);
		if (endpoint !== 'webhook-test' || !this.testRegistration) return undefined;
		const workflow = this.workflow({}, false);
		workflow.setTestStaticData(this.testRegistration);
		return workflow;
	}
}

/** An HTTP server in the role of n8n's webhook endpoints for one or more trigger workflows. */
export class WebhookReceiver {
	readonly executions: Execution[] = [];
	readonly responses: { status: number; mode: Mode }[] = [];
	/** How many of the next runs WorkflowRunner fails to start once the node took them (500). */
	failStarts = 0;
	baseUrl = '';
	private server?: Server;
	private readonly workflows = new Map<string, TriggerWorkflow>();

	async start(): Promise<void> {
		const app = express();
		app.post('/:endpoint/:webhookId/webhook', (req, res) => {
			this.handle(req, res).catch((error: Error) => {
				if (!res.headersSent) res.status(500).json({ message: error.message });
			});
		});
		this.server = app.listen(0, '127.0.0.1');
		await once(this.server, 'listening');
		this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	add(workflow: TriggerWorkflow): void {
		this.workflows.set(workflow.node.webhookId!, workflow);
	}

	async stop(): Promise<void> {
		if (this.server?.close()) await once(this.server, 'close');
	}

	/** LiveWebhooks and TestWebhooks, then WebhookHelpers.executeWebhook's answer for this trigger. */
	private async handle(req: Request, res: Response): Promise<void> {
		const owner = this.workflows.get(String(req.params.webhookId));
		const workflow = owner?.deliveryWorkflow(String(req.params.endpoint));
		if (!owner || !workflow) return void res.status(404).json(NOT_REGISTERED);
		const mode = workflow.active ? 'production' : 'test';
		const result = await owner.webhook(workflow, req as WebhookRequest, res);
		const items = result.workflowData?.[0];
		const started = items && !(this.failStarts > 0 && this.failStarts-- > 0);
		// With noWebhookResponse the node or n8n's body parser has answered.
		if (!items && !result.noWebhookResponse) res.status(200).json(result.webhookResponse);
		else if (items && !started) res.status(500).json(RUN_FAILED);
		else if (started) {
			// n8n runs the workflow (not mirrored: the real-n8n suites run it). responseMode as n8n 2.40
			// resolves it: onReceived answers the node's webhookResponse (responseData ''), lastNode
			// an empty 200 after the run (responseData 'noData').
			this.executions.push({ flowId: owner.workflowId, mode, items });
			const when = n8n.resolveWebhookDescriptionField(owner.node, description, 'responseMode');
			if (when.resolved && when.value === 'lastNode') res.status(200).end();
			else res.status(200).json(result.webhookResponse);
		}
		this.responses.push({ status: res.statusCode, mode });
		// TestWebhooks ends the test listen once a delivery started a run.
		if (mode === 'test' && started) await owner.endTestListen();
	}
}

/**
 * WebhookHelpers.parseRequestBody and the body-parser middlewares: version 1 has every body read,
 * 1.1 only JSON, text, form and XML ones; JSON, form, text parsed or answered 422 (then false).
 */
async function parseBody(req: WebhookRequest, res: Response, version: number) {
	req.readRawBody = async () => void (req.rawBody ??= Buffer.concat(await req.toArray()));
	const type = (req.headers['content-type'] ?? '').split(';')[0].toLowerCase();
	if (type === 'multipart/form-data') throw new Error("n8n's form parser is not mirrored");
	const read = /^(application\/json|text\/plain|application\/x-www-form-urlencoded)|[/+]xml$/;
	if (version > 1 && !read.test(type)) return true;
	await req.readRawBody();
	const text = req.rawBody!.toString();
	const stripBom = (json: string) => (json.charCodeAt(0) === 0xfeff ? json.slice(1) : json);
	try {
		if (text === '') return true;
		if (type === 'application/json') req.body = n8n.jsonParse(stripBom(text));
		if (type === 'application/x-www-form-urlencoded')
			req.body = parseQuery(stripBom(text), undefined, undefined, { maxKeys: 1000 });
		if (type === 'text/plain') req.body = text;
	} catch (error) {
		// UnprocessableRequestError as ResponseHelper.sendErrorResponse answers it.
		const hint = (error as Error).message;
		res.status(422).json({ code: 422, message: 'Failed to parse request body', hint });
		return false;
	}
	return true;
}

/** The contexts read of n8n's IWebhookData only the description and whether it is a test one. */
function webhookData(workflow: n8n.Workflow): n8n.IWebhookData {
	return { webhookDescription: description, isTest: !workflow.active } as n8n.IWebhookData;
}

/** Static data goes through JSON on its way to the database (and to n8n's test-webhook cache). */
function jsonCopy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}

/** n8n's receiver with a sandbox and its admin API, for a test file: started in beforeAll. */
export class TriggerHarness extends WebhookReceiver {
	sandbox!: Sandbox;
	admin!: SandboxAdmin;

	constructor(options?: SandboxOptions) {
		super();
		beforeAll(async () => {
			this.sandbox = await startSandbox(options);
			this.admin = new SandboxAdmin(this.sandbox);
			await this.start();
		});
		afterAll(async () => await Promise.all([this.stop(), this.sandbox?.close()]));
	}

	/** A trigger workflow on the sandbox (the first organization's key unless given), served here. */
	workflow(setup: Partial<TriggerSetup> = {}): TriggerWorkflow {
		const defaults = { baseUrl: this.sandbox.baseUrl, apiKey: this.sandbox.orgs[0].apiKey };
		const flow = new TriggerWorkflow({ ...defaults, n8nBaseUrl: this.baseUrl, ...setup });
		this.add(flow);
		return flow;
	}
}
