import { createHash, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject, IHookFunctions, IWebhookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { voiceAiApiRequest } from '../VoiceAi/transport';

/** Query parameter of the registered URL that carries the delivery token. */
export const TOKEN_PARAMETER = 'token';

const STATIC_KEY = 'registration';
const TEST_ENDPOINT = '/webhook-test/';
const PRODUCTION_ENDPOINT = '/webhook/';

/** What this node registered at the service, kept in the node's static data. */
export interface Registration {
	kind: 'production' | 'test';
	/** n8n's URL of this node, without the token. */
	webhookUrl: string;
	/** SHA-256 of the token (hex): the token itself is not written to the database. */
	tokenHash: string;
	registeredAt: string;
}

export function readRegistration(staticData: IDataObject): Registration | undefined {
	const record = staticData[STATIC_KEY] as Registration | undefined;
	return record && typeof record.webhookUrl === 'string' && typeof record.tokenHash === 'string'
		? record
		: undefined;
}

export function saveRegistration(staticData: IDataObject, record: Registration): void {
	staticData[STATIC_KEY] = { ...record };
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

/** n8n's test and production URLs of a node differ only in the endpoint segment. */
export function productionUrlOf(testUrl: string): string | undefined {
	const url = new URL(testUrl);
	const at = url.pathname.indexOf(TEST_ENDPOINT);
	if (at === -1) return undefined;
	url.pathname =
		url.pathname.slice(0, at) + PRODUCTION_ENDPOINT + url.pathname.slice(at + TEST_ENDPOINT.length);
	return url.toString();
}

export function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

export async function apiKeyOf(this: IHookFunctions | IWebhookFunctions): Promise<string> {
	const credentials = await this.getCredentials('voiceAiApi');
	return String(credentials.apiKey ?? '');
}

/**
 * POST /webhook/insert-webhook. A refusal fails the caller with the service's own message; the
 * error carries neither the URL (it holds the token) nor the request (it holds the API key).
 */
export async function registerAccountWebhook(this: IHookFunctions, url: string): Promise<void> {
	try {
		await voiceAiApiRequest.call(this, 'POST', '/webhook/insert-webhook', { webhook: url });
	} catch (error) {
		const { message, httpCode } = serviceError(error);
		throw new NodeApiError(
			this.getNode(),
			{ message, httpCode } as JsonObject,
			{
				message: `Voice AI did not accept the webhook URL: ${message}`,
				description: 'The account webhook was not changed.',
				httpCode: httpCode ?? undefined,
			},
		);
	}
}

export function assertHttpUrl(this: IHookFunctions, value: string, what: string): void {
	if (!isHttpUrl(value)) {
		throw new NodeOperationError(this.getNode(), `${what} must be an http:// or https:// URL`);
	}
}

interface ServiceErrorBody {
	error?: { message?: unknown; status?: unknown };
	message?: unknown;
}

/** The service's message and status from whatever shape the HTTP helper threw. */
function serviceError(error: unknown): { message: string; httpCode: string | null } {
	const e = error as {
		httpCode?: string | null;
		message?: string;
		description?: string | null;
		cause?: { response?: { status?: number; data?: unknown; body?: unknown }; status?: number };
		response?: { status?: number; data?: unknown; body?: unknown };
	};
	const response = e.cause?.response ?? e.response;
	const body = parseBody(response?.data ?? response?.body);
	const status = response?.status ?? e.cause?.status;
	const fromBody = body?.error?.message ?? body?.message;
	const message =
		typeof fromBody === 'string' && fromBody !== ''
			? fromBody
			: (e.description ?? e.message ?? 'unknown error');
	const httpCode = e.httpCode ?? (status !== undefined ? String(status) : null);
	return { message: String(message), httpCode };
}

function parseBody(data: unknown): ServiceErrorBody | undefined {
	if (typeof data === 'string') {
		try {
			return JSON.parse(data) as ServiceErrorBody;
		} catch {
			return undefined;
		}
	}
	if (Buffer.isBuffer(data)) return parseBody(data.toString('utf8'));
	return data !== null && typeof data === 'object' ? (data as ServiceErrorBody) : undefined;
}
