import { createHash, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { voiceAiApiRequest } from '../VoiceAi/transport';
import { accountKey } from './ownership';

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
	/** Production only: the account's ownership key (a hash of base URL and API key, see ownership.ts). */
	accountKey?: string;
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

function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

/** The account a trigger's credential points at: its API key and the key of its ownership entry. */
export async function accountOf(
	this: IHookFunctions | IWebhookFunctions,
): Promise<{ apiKey: string; key: string }> {
	const credentials = await this.getCredentials('voiceAiApi');
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	return { apiKey, key: accountKey(baseUrl, apiKey) };
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
	if (!isHttpUrl(value)) {
		throw new NodeOperationError(this.getNode(), `${what} must be an http:// or https:// URL`);
	}
}
