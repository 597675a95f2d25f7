/**
 * SIP passwords in a real n8n: a canary password set through each supported way (the trunk login of a
 * Voice AI with SIP Trunk Login credential, the node's one credential under Authentication "API Key and
 * SIP Trunk Login"; an expression reading an input item; a value typed into the node) reaches the
 * service and never appears in output items, error messages or n8n's log (at debug level); for the
 * credential way, not in the stored workflow nor in the execution data either. A workflow saved with
 * the former shape (Voice AI API plus a separate SIP Trunk Login credential) fails saying what to
 * change, sending nothing. docs/sip-credentials.md says why.
 */
import { readFileSync } from 'node:fs';

import { START, chain, codeNode, voiceAiNode } from '../../harness/manualWorkflow';
import type { CredentialRef, WorkflowJson } from '../../harness/n8n';
import { stackForFile } from '../../harness/stack';

const CANARY = {
	credential: 'sipcanary-credential-7Qx9Lw',
	expression: 'sipcanary-expression-3Lm2Kd',
	typed: 'sipcanary-typed-5Rt8Vb',
	refused: 'sipcanary-refused-9Pz4Hc',
	formerShape: 'sipcanary-former-2Wd6Jn',
};

const stack = stackForFile({ n8n: { env: { N8N_LOG_LEVEL: 'debug' } } });
let login: CredentialRef;
let tooLong: CredentialRef;
let formerLogin: CredentialRef;

/** A Voice AI with SIP Trunk Login credential: the sandbox's base URL and key, and this trunk login. */
async function keyAndLogin(name: string, sipPassword: string): Promise<CredentialRef> {
	return await stack.api.createCredential(name, 'voiceAiWithSipLoginApi', {
		baseUrl: stack.sandbox.baseUrl,
		apiKey: stack.org.apiKey,
		authHeader: 'bearer',
		sipUsername: 'trunk-user',
		sipPassword,
	});
}

beforeAll(async () => {
	login = await keyAndLogin('Voice AI with SIP trunk login', CANARY.credential);
	// Longer than the sandbox takes (128 characters): the service answers 400.
	tooLong = await keyAndLogin(
		'SIP login the service refuses',
		`${CANARY.refused}${'x'.repeat(140)}`,
	);
	// The credential type SIP Update and Compare read before the node used one credential at a time.
	formerLogin = await stack.api.createCredential('Former SIP trunk login', 'voiceAiSipLoginApi', {
		sipUsername: 'trunk-user',
		sipPassword: CANARY.formerShape,
	});
}, 180_000);

/**
 * A Voice AI node that tries each request once: with `keyAndLogin`, Authentication "API Key and SIP
 * Trunk Login" and that one credential; otherwise the sandbox's Voice AI API credential.
 */
function voiceAi(name: string, parameters: Record<string, unknown>, keyAndLogin?: CredentialRef) {
	return keyAndLogin
		? voiceAiNode(
				name,
				{ options: { maxAttempts: 1 }, authentication: 'apiKeyAndSipLogin', ...parameters },
				{ voiceAiWithSipLoginApi: keyAndLogin },
			)
		: voiceAiNode(
				name,
				{ options: { maxAttempts: 1 }, ...parameters },
				{ voiceAiApi: stack.credential },
			);
}

/** SIP Update or Compare of +14155550101, setting one direction's endpoint, its login from `sipLogin`. */
function withLogin(
	operation: 'update' | 'compare',
	direction: 'inbound' | 'outbound',
	sipEndpoint: string,
	sipLogin: CredentialRef,
) {
	return voiceAi(
		operation === 'update' ? 'Update' : 'Compare',
		{
			resource: 'sip',
			operation,
			phoneNumber: '+14155550101',
			sipLogin: 'credential',
			directions: { [direction]: { sipEndpoint } },
		},
		sipLogin,
	);
}

const getSip = (phoneNumber: string) =>
	voiceAi('Get', { resource: 'sip', operation: 'get', phoneNumber });

/** What the sandbox holds for the number. */
async function sipOf(phone: string) {
	const state = await stack.admin.state<{
		sip: Array<{
			phone_number: string;
			directions: Array<{ type: string; options: Record<string, unknown> }>;
		}>;
	}>(stack.org.id);
	return state.sip.find((entry) => entry.phone_number === phone)!;
}

async function directionOf(phone: string, type: 'inbound' | 'outbound') {
	return (await sipOf(phone)).directions.find((direction) => direction.type === type)!;
}

/** Everything n8n keeps of a run, as its REST API gives it: the saved workflow and the raw execution. */
async function stored(
	workflowId: string,
	executionId: string,
): Promise<{ workflow: string; execution: string }> {
	const workflow = JSON.stringify(await stack.api.request('GET', `/rest/workflows/${workflowId}`));
	const execution = JSON.stringify(
		await stack.api.request('GET', `/rest/executions/${executionId}`),
	);
	return { workflow, execution };
}

function n8nLog(): string {
	return readFileSync(stack.n8n.logFile, 'utf8');
}

async function runSaved(workflow: WorkflowJson) {
	const saved = await stack.api.importWorkflow(workflow);
	const execution = await stack.api.runWorkflow(saved, START);
	return { saved, execution };
}

test("the trunk login of the node's one credential: sent to the service, absent from outputs, stored workflow, execution data and log", async () => {
	const { saved, execution } = await runSaved(
		chain('sip login by credential', [
			withLogin('update', 'inbound', 'sip:pbx.acme-dental.example', login),
			getSip('+14155550101'),
			withLogin('compare', 'inbound', 'sip:pbx.acme-dental.example', login),
		]),
	);
	expect(execution.status).toBe('success');
	expect((await directionOf('+14155550101', 'inbound')).options).toMatchObject({
		sip_username: 'trunk-user',
		sip_password: CANARY.credential,
	});

	expect(execution.outputs.Get[0]).toMatchObject({
		directions: [
			{ options: { sip_password: '(set, hidden)' } },
			{ options: { sip_password: '(set, hidden)' } },
		],
	});
	expect(execution.outputs.Compare[0]).toMatchObject({ status: 'in sync' });
	expect(JSON.stringify(execution.outputs)).not.toContain(CANARY.credential);
	const { workflow, execution: raw } = await stored(saved.id, execution.id);
	expect(workflow).toContain(login.id);
	expect(workflow).not.toContain(CANARY.credential);
	expect(raw).not.toContain(CANARY.credential);
	expect(n8nLog()).not.toContain(CANARY.credential);
});

test('an expression reading the input item: the password stays out of the Voice AI outputs, the saved node and the log', async () => {
	// The rows a bulk provisioning reads from a sheet or a database; the canary is built at run time so
	// the workflow file does not hold it.
	const reversed = CANARY.expression.split('').reverse().join('');
	const { saved, execution } = await runSaved(
		chain('sip login by expression', [
			codeNode(
				'Rows',
				`return [{ json: { phone: '+14155550102', sip_username: 'bulk-user', sip_password: '${reversed}'.split('').reverse().join('') } }];`,
			),
			voiceAi('Update', {
				resource: 'sip',
				operation: 'update',
				phoneNumber: '={{ $json.phone }}',
				directions: {
					outbound: {
						sipEndpoint: 'sip:pbx.acme-dental.example',
						sipUsername: '={{ $json.sip_username }}',
						sipPassword: '={{ $json.sip_password }}',
					},
				},
			}),
			getSip('+14155550102'),
		]),
	);
	expect(execution.status).toBe('success');
	expect((await directionOf('+14155550102', 'outbound')).options).toMatchObject({
		sip_username: 'bulk-user',
		sip_password: CANARY.expression,
	});

	expect(JSON.stringify([execution.outputs.Update, execution.outputs.Get])).not.toContain(
		CANARY.expression,
	);
	const { workflow } = await stored(saved.id, execution.id);
	expect(workflow).toContain('{{ $json.sip_password }}');
	expect(workflow).not.toContain(CANARY.expression);
	expect(n8nLog()).not.toContain(CANARY.expression);
});

test('a password typed into the node: absent from outputs and log (the saved workflow holds it, as documented)', async () => {
	const { saved, execution } = await runSaved(
		chain('sip login typed', [
			voiceAi('Update', {
				resource: 'sip',
				operation: 'update',
				phoneNumber: '+14155550103',
				directions: {
					inbound: { sipEndpoint: 'sip:pbx.acme-dental.example', sipPassword: CANARY.typed },
				},
			}),
		]),
	);
	expect(execution.status).toBe('success');
	expect((await directionOf('+14155550103', 'inbound')).options.sip_password).toBe(CANARY.typed);
	expect(JSON.stringify(execution.outputs)).not.toContain(CANARY.typed);
	expect(n8nLog()).not.toContain(CANARY.typed);
	const { workflow } = await stored(saved.id, execution.id);
	expect(workflow).toContain(CANARY.typed);
});

test('a write the service refuses: the error names the problem without the password', async () => {
	const { saved, execution } = await runSaved(
		chain('sip login refused', [
			withLogin('update', 'outbound', 'sip:pbx.acme-dental.example', tooLong),
		]),
	);
	expect(execution.status).toBe('error');
	expect(execution.error).toMatch(/sip_password/);
	expect(execution.error).not.toContain(CANARY.refused);
	const { workflow, execution: raw } = await stored(saved.id, execution.id);
	expect(workflow).not.toContain(CANARY.refused);
	expect(raw).not.toContain(CANARY.refused);
	expect(n8nLog()).not.toContain(CANARY.refused);
});

test('a GET answer the node cannot read: Update refuses, writes nothing and shows no password', async () => {
	await stack.admin.withSipGetShape(stack.org.id, 'list', async () => {
		const before = await sipOf('+14155550101');
		const { execution } = await runSaved(
			chain('sip update on an unreadable answer', [
				withLogin('update', 'inbound', 'sip:pbx9.acme-dental.example', login),
			]),
		);
		expect(execution.status).toBe('error');
		expect(execution.error).toMatch(
			/wrote nothing: the current SIP configuration could not be read/,
		);
		expect(await sipOf('+14155550101')).toEqual(before);
		expect(execution.error).not.toContain(CANARY.credential);
	});
});

test('a workflow saved with a separate SIP Trunk Login credential fails saying what to change, writing and showing nothing', async () => {
	const before = await sipOf('+14155550103');
	const { saved, execution } = await runSaved(
		chain('sip login, former shape', [
			voiceAiNode(
				'Update',
				{
					options: { maxAttempts: 1 },
					resource: 'sip',
					operation: 'update',
					phoneNumber: '+14155550103',
					sipLogin: 'credential',
					directions: { inbound: { sipEndpoint: 'sip:pbx.acme-dental.example' } },
				},
				{ voiceAiApi: stack.credential, voiceAiSipLoginApi: formerLogin },
			),
		]),
	);
	expect(execution.status).toBe('error');
	expect(execution.error).toMatch(
		/the SIP Trunk Login Credential needs Authentication "API Key and SIP Trunk Login"/,
	);
	expect(await sipOf('+14155550103')).toEqual(before);
	const { workflow, execution: raw } = await stored(saved.id, execution.id);
	expect(raw).toContain('Voice AI with SIP Trunk Login API');
	expect(workflow).not.toContain(CANARY.formerShape);
	expect(raw).not.toContain(CANARY.formerShape);
	expect(n8nLog()).not.toContain(CANARY.formerShape);
});
