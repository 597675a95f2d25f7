/**
 * Sandbox + real n8n + owner + Voice AI credential in one call, for the e2e suite, the demo and the
 * benchmarks. The pieces are in ./n8n.ts (n8n) and ./sandboxAdmin.ts (sandbox admin API).
 */
import { startSandbox } from '../sandbox';
import { N8nApi, startN8n, type CredentialRef, type N8nProcess, type StartN8nOptions } from './n8n';
import { SandboxAdmin } from './sandboxAdmin';

export interface Stack {
	sandbox: Awaited<ReturnType<typeof startSandbox>>;
	admin: SandboxAdmin;
	n8n: N8nProcess;
	api: N8nApi;
	/** Voice AI credential pointing at the sandbox with the key of `org`. */
	credential: CredentialRef;
	org: { id: string; name: string; apiKey: string };
	close(): Promise<void>;
}

/**
 * Sandbox (demo seed) + n8n + owner + a Voice AI credential for org Acme (or `org`), in parallel where
 * possible. close() stops both and removes n8n's temp folder.
 */
export async function startStack(
	options: {
		n8n?: StartN8nOptions;
		sandbox?: Parameters<typeof startSandbox>[0];
		org?: string;
	} = {},
): Promise<Stack> {
	const [sandbox, n8n] = await Promise.all([
		startSandbox(options.sandbox ?? {}),
		startN8n(options.n8n),
	]);
	try {
		const org = sandbox.orgs.find((o) => o.id === (options.org ?? 'org_acme')) ?? sandbox.orgs[0];
		const api = await N8nApi.setupOwner(n8n.baseUrl);
		const credential = await api.createVoiceAiCredential(
			{ baseUrl: sandbox.baseUrl, apiKey: org.apiKey },
			`Voice AI sandbox (${org.name})`,
		);
		return {
			sandbox,
			admin: new SandboxAdmin(sandbox),
			n8n,
			api,
			credential,
			org,
			close: async () => {
				// n8n.close() fails when a webhook token reached n8n's log: that must not be swallowed.
				const [n8nClosed] = await Promise.allSettled([n8n.close(), sandbox.close()]);
				if (n8nClosed.status === 'rejected') throw n8nClosed.reason;
			},
		};
	} catch (error) {
		await Promise.allSettled([n8n.close(), sandbox.close()]);
		throw error;
	}
}

/**
 * The stack of one jest test file: started before its tests (5 minutes allowed: n8n's first start on
 * a cold machine) and closed after them. The object is filled in place, so `stack.api` reads the same.
 */
export function stackForFile(options: Parameters<typeof startStack>[0] = {}): Stack {
	const stack = {} as Stack;
	beforeAll(async () => {
		Object.assign(stack, await startStack(options));
	}, 300_000);
	afterAll(async () => {
		await stack.close?.();
	});
	return stack;
}
