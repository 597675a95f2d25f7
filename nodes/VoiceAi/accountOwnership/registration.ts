import { createHash, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseBaseUrl } from '../../../credentials/voiceAiBaseUrl';
import type { Claim } from './ownership';
import { agentsIn, requestAgents } from '../listSearch/agentList';
import { credentialTypeOf, destinationProblem, httpUrl, voiceAiApiRequest } from '../transport';

/** Query parameter of the registered URL that carries the delivery token. */
export const TOKEN_PARAMETER = 'token';

const STATIC_KEY = 'registration';

/** What this node registered at the service, kept in the node's static data. */
export interface Registration {
	kind: 'production' | 'test';
	/** n8n's URL of this node, without the token. */
	webhookUrl: string;
	/** SHA-256 of the token (hex): the token itself is not written to the database. */
	tokenHash: string;
	registeredAt: string;
	/** Production only: when this trigger first claimed the account (ms), to order claims after a restart. */
	claimedAt?: number;
	/** Production only: the hash of base URL and API key it was claimed with (docs/trigger-ownership.md). */
	accountKey?: string;
	/** Production only: the claims queued before it when it claimed (whom it took over from), oldest first. */
	queued?: QueuedClaim[];
}

/** A claim as another trigger's record keeps it: no token (the claim's own key derives it). */
export type QueuedClaim = Omit<Claim, 'token' | 'releaseFailed'>;

export function readRegistration(staticData: IDataObject): Registration | undefined {
	const record = staticData[STATIC_KEY] as Registration | undefined;
	return record && typeof record.webhookUrl === 'string' && typeof record.tokenHash === 'string'
		? record
		: undefined;
}

/** Registered: the token's hash is kept, never the token. */
export function saveRegistration(
	staticData: IDataObject,
	kind: Registration['kind'],
	url: string,
	token: string,
	claim: Pick<Registration, 'claimedAt' | 'accountKey' | 'queued'> = {},
): void {
	const tokenHash = hashToken(token);
	const registeredAt = new Date().toISOString();
	staticData[STATIC_KEY] = { kind, webhookUrl: url, tokenHash, registeredAt, ...claim };
}

export function forgetRegistration(staticData: IDataObject): void {
	delete staticData[STATIC_KEY];
}

/**
 * The production token is an HMAC of the production URL keyed with the API key, not a random value:
 * n8n runs "Listen for test event" with an empty static data, so the test listener cannot read what
 * production stored, yet it has to put the production URL (token included) back when the test ends.
 * The HMAC reveals nothing about the key.
 */
export function productionToken(apiKey: string, productionUrl: string): string {
	return createHmac('sha256', apiKey)
		.update(`n8n-nodes-voiceai/trigger/v1\n${productionUrl}`)
		.digest('base64url');
}

/** A test listen gets a fresh random token that lives only as long as the test. */
export function testToken(): string {
	return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
	return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison; hashing first gives both sides the same length. */
export function tokenMatches(given: string, expectedHash: string): boolean {
	const a = Buffer.from(hashToken(given), 'hex');
	const b = Buffer.from(expectedHash, 'hex');
	return a.length === b.length && timingSafeEqual(a, b);
}

export function withToken(webhookUrl: string, token: string): string {
	const url = new URL(webhookUrl);
	url.searchParams.set(TOKEN_PARAMETER, token);
	return url.toString();
}

/** The API key of the trigger's credential as it is now. */
export async function apiKeyOf(this: IHookFunctions | IWebhookFunctions): Promise<string> {
	return String((await this.getCredentials('voiceAiApi')).apiKey ?? '');
}

/**
 * POST /webhook/insert-webhook. Setting the same URL twice changes nothing, so the transport may
 * repeat it after a 5xx or a timeout. A refusal fails the caller with the service's own message
 * (the transport's error holds neither the request, with its key, nor the URL, with its token).
 */
export async function registerAccountWebhook(this: IHookFunctions, url: string): Promise<void> {
	await voiceAiApiRequest.call(
		this,
		'POST',
		'/webhook/insert-webhook',
		{ webhook: url },
		{},
		{ repeatable: true },
	);
}

export function assertHttpUrl(this: IHookFunctions, value: string, what: string): void {
	const url = httpUrl(value);
	if (url === undefined) {
		throw new NodeOperationError(this.getNode(), `${what} must be an http:// or https:// URL`);
	}
	const problem = destinationProblem(value, url);
	if (problem) throw new NodeOperationError(this.getNode(), `${what} ${problem}`);
}

/** 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16 (link-local), 100.64/10 (shared) and 0/8. */
function isLocalIpv4(parts: number[]): boolean {
	const [a, b] = parts;
	return (
		a === 127 ||
		a === 10 ||
		a === 0 ||
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168) ||
		(a === 169 && b === 254) ||
		(a === 100 && b >= 64 && b <= 127)
	);
}

function ipv4Parts(host: string): number[] | undefined {
	const parts = host.split('.');
	if (parts.length !== 4 || parts.some((part) => part === '' || String(Number(part)) !== part))
		return undefined;
	return parts.map(Number);
}

/** The eight 16-bit groups of an IPv6 address as WHATWG URL prints it (hex, `::` compressed, no dots). */
function ipv6Groups(ip: string): number[] {
	const [head, tail] = ip.split('::');
	const groups = (part: string | undefined) =>
		part ? part.split(':').map((g) => parseInt(g, 16)) : [];
	const [before, after] = [groups(head), groups(tail)];
	return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** The first 96 bits of IPv4-compatible, IPv4-mapped and NAT64 (RFC 6052) addresses. */
const IPV4_CARRYING_PREFIXES = ['0:0:0:0:0:0', '0:0:0:0:0:ffff', '64:ff9b:0:0:0:0'];

/**
 * Loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), the deprecated site-local
 * (fec0::/10; with link-local, fe80::/9), and a local IPv4 address carried in IPv6: compatible
 * (::/96, which holds :: and ::1 as 0.0.0.0 and 0.0.0.1), mapped (::ffff:0:0/96) or NAT64
 * (64:ff9b::/96).
 */
function isLocalIpv6(ip: string): boolean {
	const groups = ipv6Groups(ip);
	const prefix = groups
		.slice(0, 6)
		.map((group) => group.toString(16))
		.join(':');
	if (IPV4_CARRYING_PREFIXES.includes(prefix)) {
		const [high, low] = groups.slice(6);
		return isLocalIpv4([high >> 8, high & 255, low >> 8, low & 255]);
	}
	return (groups[0] & 0xfe00) === 0xfc00 || (groups[0] & 0xff80) === 0xfe80;
}

/**
 * Names only a local network resolves: `localhost` (RFC 6761), mDNS's `.local`, `.internal` (reserved
 * for private use by ICANN; Docker's `host.docker.internal`), `.home.arpa` (RFC 8375) and `.lan`.
 */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'lan'];

/**
 * Whether a host (as WHATWG URL gives it: lower-case, IPv4 in dotted form, IPv6 in brackets) is one a
 * service elsewhere cannot reach: loopback, private, link-local, a local name, or a name without a dot.
 */
export function isLocalHost(hostname: string): boolean {
	const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
	if (host.startsWith('[')) return isLocalIpv6(host.slice(1, -1));
	const ipv4 = ipv4Parts(host);
	if (ipv4 !== undefined) return isLocalIpv4(ipv4);
	return (
		!host.includes('.') ||
		LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))
	);
}

/**
 * Publishing or listening registers n8n's webhook URL: refuse one the service cannot reach (a local
 * host) while the base URL names a host elsewhere, unless the user says the service is on n8n's network.
 */
export async function assertServiceCanReach(
	this: IHookFunctions,
	webhookUrl: string,
): Promise<void> {
	if (this.getNodeParameter('options.allowLocalUrl', false) === true) return;
	const n8nHost = httpUrl(webhookUrl)?.hostname;
	const baseUrl = parseBaseUrl((await this.getCredentials('voiceAiApi')).baseUrl);
	const serviceHost = baseUrl.ok ? baseUrl.url.hostname : undefined;
	if (n8nHost === undefined || serviceHost === undefined) return;
	if (!isLocalHost(n8nHost) || isLocalHost(serviceHost)) return;
	throw new NodeOperationError(
		this.getNode(),
		`Voice AI at ${serviceHost} cannot reach n8n at ${webhookUrl}: set n8n's WEBHOOK_URL to an address the service can reach (a public host name, a reverse proxy or a tunnel)`,
		{
			description: `n8n builds its webhook URLs from the WEBHOOK_URL environment variable; unset, they read http://localhost:5678/. Set it to this n8n's public address (for example WEBHOOK_URL=https://n8n.example.com/ behind a reverse proxy, or a tunnel's address), restart n8n and try again. If the Voice AI service really runs on the same network as n8n, turn on Options > Allow a Local Webhook URL.`,
		},
	);
}

/** A credential's key as ownership knows it: never the key itself. */
export interface KeyIdentity {
	baseUrl: string;
	keyHash: string;
	credentialId?: string;
	/** The agent ids the key lists; undefined when not read or not a list. */
	agentIds?: string[];
}

export function accountKey(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex');
}

/**
 * The credential's key as ownership knows it; its agent list is read when `wantAgents` says (a
 * publish always, to tell later keys apart), through `read` when the caller sends its own requests.
 */
export async function identityOf(
	this: IExecuteFunctions | IHookFunctions | IWebhookFunctions,
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
	const key: KeyIdentity = { baseUrl, keyHash: accountKey(baseUrl, apiKey) };
	key.credentialId = node.credentials?.[type]?.id ?? undefined;
	if (wantAgents(key)) {
		const list = read ? agentsIn(await read()) : await requestAgents.call(this, { itemIndex });
		key.agentIds = list?.flatMap(({ id }) =>
			typeof id === 'string' || typeof id === 'number' ? [String(id)] : [],
		);
	}
	return { apiKey, identity: key };
}

/** Whether n8n no longer serves a production URL: 404 without a token (a published trigger answers 401). */
export async function isGone(this: IHookFunctions, url: string): Promise<boolean> {
	const probe = { method: 'POST' as const, url, body: {}, json: true, timeout: 10_000 };
	// n8n's own webhook URL, not the service: no credential, no token.
	// eslint-disable-next-line no-restricted-syntax
	const answer = this.helpers.httpRequest({
		...probe,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
	});
	return await answer.then(
		(response: { statusCode?: number }) => response.statusCode === 404,
		() => false,
	);
}
