/** A sandbox per test file and a small admin client for the node suites. */
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import type { InputItem, RunNodeResult } from './engine';
import { runNode } from './engine';
import type { Sandbox, SandboxOptions } from '../sandbox';
import { startSandbox } from '../sandbox';
import type { AnswerShapes } from '../sandbox/shapes';
import { SandboxAdmin } from './sandboxAdmin';

export interface LoggedRequest {
	method: string;
	path: string;
	query: Record<string, unknown>;
	orgId: string | null;
	auth: 'bearer' | 'x-api-key' | 'both' | 'none';
	status: number;
	contentType: string | null;
	bodySize: number;
}

export class SandboxFixture {
	sandbox!: Sandbox;

	async start(options: SandboxOptions = {}): Promise<void> {
		this.sandbox = await startSandbox(options);
	}

	async stop(): Promise<void> {
		await this.sandbox?.close();
	}

	get acme() {
		return this.sandbox.orgs.find((org) => org.id === 'org_acme')!;
	}

	get globex() {
		return this.sandbox.orgs.find((org) => org.id === 'org_globex')!;
	}

	credentials(
		overrides: ICredentialDataDecryptedObject = {},
	): Record<string, ICredentialDataDecryptedObject> {
		return {
			voiceAiApi: { baseUrl: this.sandbox.baseUrl, apiKey: this.acme.apiKey, ...overrides },
		};
	}

	async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		return await new SandboxAdmin(this.sandbox).request<T>(method, `/__sandbox${path}`, body);
	}

	async requests(): Promise<LoggedRequest[]> {
		return await this.admin<LoggedRequest[]>('GET', '/requests');
	}

	async reset(): Promise<void> {
		await this.admin('DELETE', '/faults');
		await this.admin('PUT', '/config', { latencyMs: 0, rateLimit: 0, shapes: 'documented' });
		await this.admin('PUT', '/orgs/org_acme/shapes', { shapes: null });
		await this.admin('DELETE', '/requests');
	}

	/** How the sandbox shapes the answers the spec does not show, for Acme's requests (sandbox/shapes.ts). */
	async shapes(shapes: AnswerShapes): Promise<void> {
		await this.admin('PUT', '/orgs/org_acme/shapes', { shapes });
	}

	async fault(fault: {
		method?: string;
		path?: string;
		kind: string;
		times?: number;
		status?: number;
	}): Promise<void> {
		await this.admin('POST', '/faults', fault);
	}

	async state<T = Record<string, unknown>>(org = 'org_acme'): Promise<T> {
		return await this.admin<T>('GET', `/orgs/${org}/state`);
	}

	/** Runs the Voice AI node with the Acme credential (unless `credentials` says otherwise). */
	async run(
		parameters: INodeParameters,
		options: {
			items?: InputItem[];
			continueOnFail?: boolean;
			credentials?: ICredentialDataDecryptedObject;
		} = {},
	): Promise<RunNodeResult> {
		return await runNode({
			parameters,
			credentials: this.credentials(options.credentials),
			items: options.items,
			continueOnFail: options.continueOnFail,
		});
	}
}

/** Everything a run produced, as text: used to prove the API key never shows up. */
export function everything(result: RunNodeResult): string {
	const error = result.error;
	return JSON.stringify({
		items: result.outputs,
		error: error && {
			message: error.message,
			description: error.description,
			context: error.context,
			stack: error.stack,
		},
		run: result.run?.data.resultData,
	});
}

export { PNG, SVG } from './images';
