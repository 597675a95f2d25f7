import { createHash, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { destinationProblem, httpUrl, parseBaseUrl } from '../../../credentials/urlRules';
import { agentsIn, requestAgents } from '../agents';
import { type VoiceAiContext, credentialTypeOf, voiceAiApiRequest } from '../transport/request';

export const TOKEN_PARAMETER = 'token';

/** What this node registered, in its static data: never the token. */
export interface Registration {
	kind: 'production' | 'test';
	webhookUrl: string; // n8n's URL of this node, without the token
	tokenHash: string;
	claimedAt?: number; // production only, as the next two: when it first claimed (ms)
	accountKey?: string; // the hash of the key it claimed with
	queued?: QueuedClaim[]; // the claims queued before it, oldest first
}

/**
 * A published trigger's claim as another trigger's record keeps it: no token (its own key derives
 * it).
 */
export interface QueuedClaim {
	id: string; // workflow id/node id
	workflowId: string;
	workflowName: string;
	productionUrl: string;
	claimedAt: number;
	keyHash: string; // of the key it claimed with
	credentialId?: string; // n8n's id of the credential that key came from (a rotation keeps it)
}

export function readRegistration(staticData: IDataObject): Registration | undefined {
	const record = staticData.registration as Registration | undefined;
	const valid = typeof record?.webhookUrl === 'string' && typeof record.tokenHash === 'string';
	return valid ? record : undefined;
}

export function saveRegistration(
	staticData: IDataObject,
	webhookUrl: string,
	token: string,
	claim?: Pick<Registration, 'claimedAt' | 'accountKey' | 'queued'>,
): void {
	const kind = claim ? 'production' : 'test';
	staticData.registration = { kind, webhookUrl, tokenHash: hashToken(token), ...claim };
}

/**
 * HMACs, not random values: a test listen (empty static data) must put the production URL back,
 * token included. Each way of receiving has its own label (no URL holds a line break), so a token
 * of one is never a token of the other: the account way's address opens nothing on a chatbot's, and
 * back.
 */
const urlToken = (label: string, apiKey: string, productionUrl: string): string =>
	createHmac('sha256', apiKey).update(`${label}\n${productionUrl}`).digest('base64url');
/**
 * The account way (Receive From = the account webhook); the label is the one tokens registered
 * before had.
 */
export const productionToken = (apiKey: string, productionUrl: string): string =>
	urlToken('n8n-nodes-voiceai/trigger/v1', apiKey, productionUrl);
/** Receive From = a chatbot's own webhook URL. */
export const chatbotToken = (apiKey: string, productionUrl: string): string =>
	urlToken('n8n-nodes-voiceai/trigger/chatbot/v1', apiKey, productionUrl);
export const testToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string =>
	createHash('sha256').update(token, 'utf8').digest('hex');

/** Constant-time comparison; hashing first gives both sides the same length. */
export function tokenMatches(given: string, expectedHash: string): boolean {
	const [a, b] = [Buffer.from(hashToken(given), 'hex'), Buffer.from(expectedHash, 'hex')];
	return a.length === b.length && timingSafeEqual(a, b);
}

export function withToken(webhookUrl: string, token: string): string {
	const url = new URL(webhookUrl);
	url.searchParams.set(TOKEN_PARAMETER, token);
	return url.toString();
}

export async function apiKeyOf(this: IHookFunctions | IWebhookFunctions): Promise<string> {
	return String((await this.getCredentials('voiceAiApi')).apiKey ?? '');
}

/**
 * Points the account webhook at `url` (with `token` when given); the same URL twice changes
 * nothing, so the transport may repeat it.
 */
export async function registerAccountWebhook(this: IHookFunctions, url: string, token?: string) {
	const webhook = token === undefined ? url : withToken(url, token);
	const path = '/webhook/insert-webhook';
	await voiceAiApiRequest.call(this, 'POST', path, { webhook }, {}, { repeatable: true });
}

export function replacementUrlOf(this: IHookFunctions): string {
	const value = this.getNodeParameter('replacementUrl') as string;
	const url = httpUrl(value);
	const problem = url ? destinationProblem(value, url) : 'must be an http:// or https:// URL';
	if (problem) throw new NodeOperationError(this.getNode(), `Replacement Webhook URL ${problem}`);
	return value;
}

const isLocalIpv4 = ([a, b]: number[]): boolean =>
	[0, 10, 127].includes(a) ||
	(a === 100 && b >= 64 && b <= 127) ||
	(a === 169 && b === 254) ||
	(a === 172 && b >= 16 && b <= 31) ||
	(a === 192 && b === 168);

/**
 * A host (as WHATWG URL writes it) a service elsewhere cannot reach; IPv4 also in ::/96,
 * ::ffff:0:0/96, 64:ff9b::/96.
 */
export function isLocalHost(hostname: string): boolean {
	const host = hostname.replace(/\.$/, '');
	if (/^[\d.]+$/.test(host)) return isLocalIpv4(host.split('.').map(Number));
	if (!host.startsWith('[')) {
		const suffixes = ['localhost', 'local', 'internal', 'home.arpa', 'lan'];
		return !host.includes('.') || suffixes.some((s) => host === s || host.endsWith(`.${s}`));
	}
	// Compressed, lower case: an embedded IPv4 address is the last two groups after the prefix.
	const v4 = /^\[(?:::|::ffff:|64:ff9b::)(?:([\da-f]+):)?[\da-f]*\]$/.exec(host);
	const high = parseInt(v4?.[1] ?? '0', 16);
	if (v4) return isLocalIpv4([high >> 8, high & 255]);
	const first = parseInt(host.slice(1), 16); // fc00::/7, fe80::/9 (parseInt stops at ':')
	return (first & 0xfe00) === 0xfc00 || (first & 0xff80) === 0xfe80;
}

export async function assertServiceCanReach(this: IHookFunctions, url: string): Promise<void> {
	if (this.getNodeParameter('options.allowLocalUrl', false) === true) return;
	const n8nHost = httpUrl(url)?.hostname;
	const baseUrl = parseBaseUrl((await this.getCredentials('voiceAiApi')).baseUrl);
	const serviceHost = baseUrl.ok ? baseUrl.url.hostname : undefined;
	if (!n8nHost || !serviceHost || !isLocalHost(n8nHost) || isLocalHost(serviceHost)) return;
	const message = `Voice AI at ${serviceHost} cannot reach n8n at ${url}: set n8n's WEBHOOK_URL to an address the service can reach (a public host name, a reverse proxy or a tunnel)`;
	const description = `n8n builds its webhook URLs from the WEBHOOK_URL environment variable; unset, they read http://localhost:5678/. Set it to this n8n's public address (for example WEBHOOK_URL=https://n8n.example.com/ behind a reverse proxy, or a tunnel's address), restart n8n and try again. If the Voice AI service really runs on the same network as n8n, turn on Options > Allow a Local Webhook URL.`;
	throw new NodeOperationError(this.getNode(), message, { description });
}

/**
 * A credential's key as ownership knows it: never the key itself; `agentIds` undefined when not
 * read.
 */
export interface KeyIdentity {
	baseUrl: string;
	keyHash: string;
	credentialId?: string;
	agentIds?: string[];
}

export const accountKey = (baseUrl: string, apiKey: string): string =>
	createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex');

export async function identityOf(
	this: VoiceAiContext,
	wantAgents: (key: KeyIdentity) => boolean,
	itemIndex?: number,
	read?: () => Promise<unknown>,
): Promise<{ apiKey: string; identity: KeyIdentity }> {
	const node = this.getNode();
	const type = credentialTypeOf(node);
	const credentials = await this.getCredentials(type, itemIndex);
	const apiKey = String(credentials.apiKey ?? '');
	const parsed = parseBaseUrl(credentials.baseUrl);
	const baseUrl = parsed.ok ? parsed.url.base : String(credentials.baseUrl ?? '').trim();
	const credentialId = node.credentials?.[type]?.id ?? undefined;
	const identity: KeyIdentity = { baseUrl, keyHash: accountKey(baseUrl, apiKey), credentialId };
	if (wantAgents(identity)) {
		const list = read ? agentsIn(await read()) : await requestAgents.call(this, { itemIndex });
		identity.agentIds = list?.flatMap(({ id }) =>
			typeof id === 'string' || typeof id === 'number' ? [String(id)] : [],
		);
	}
	return { apiKey, identity };
}

/**
 * Whether n8n no longer serves a production URL: 404 without a token (a published trigger answers
 * 401).
 */
export async function isGone(this: IHookFunctions, url: string): Promise<boolean> {
	return (await servingOf.call(this, url)) === 'gone';
}

/**
 * What n8n answers at a production URL without a token: 401 from a published trigger, 404 when
 * unpublished.
 */
export async function servingOf(
	this: IHookFunctions,
	url: string,
): Promise<'served' | 'gone' | 'unknown'> {
	const request = { method: 'POST' as const, url, body: {}, json: true, timeout: 10_000 };
	const asIs = { returnFullResponse: true, ignoreHttpStatusErrors: true };
	// n8n's own webhook URL, not the service: no credential, no token.
	// eslint-disable-next-line no-restricted-syntax
	const answer = this.helpers.httpRequest({ ...request, ...asIs, disableFollowRedirect: true });
	const response: { statusCode?: number } | undefined = await answer.catch(() => undefined);
	return response?.statusCode === 404
		? 'gone'
		: response?.statusCode === 401
			? 'served'
			: 'unknown';
}
