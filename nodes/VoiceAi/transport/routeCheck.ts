import type { INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { VoiceAiCredential } from './credential';
import { API_CHECK_PATH } from '../../../credentials/voiceAiBaseUrl';

// A 404 means "this record does not exist" only if the base URL reaches the API: a base URL whose path
// the service does not have answers 404 to every route. The node then reads API_CHECK_PATH once per
// execution (the credential is read once per execution), as the credential test does.

const checks = new WeakMap<VoiceAiCredential, Promise<boolean>>();

/**
 * Does the base URL answer 404 to API_CHECK_PATH too? `read` sends that GET; a 404 from it means yes,
 * any answer or other failure means the base URL reaches something that serves the API (or the node
 * cannot tell), and the 404 stays the record's.
 */
export async function baseUrlAnswers404(
	credential: VoiceAiCredential,
	read: () => Promise<unknown>,
): Promise<boolean> {
	let check = checks.get(credential);
	if (!check) {
		check = read().then(
			() => false,
			(error: unknown) => error instanceof NodeApiError && error.httpCode === '404',
		);
		checks.set(credential, check);
	}
	return await check;
}

const ROUTE_UNKNOWN = 'routeUnknown';

/** The 404 of a base URL whose path is not the API's: about the base URL, never about a record. */
export function baseUrlNotFoundError(
	node: INode,
	context: { itemIndex?: number; origin?: string; target?: string },
	said: string | undefined,
): NodeApiError {
	const asked = `${said ? ` (${said})` : ''}${context.target ? ` for ${context.target}` : ''}`;
	const message = `Voice AI answered 404${asked}, and the base URL answers 404 to GET ${API_CHECK_PATH} too: the Base URL does not point at the Voice AI API`;
	const description = `Check the Base URL in the Voice AI credential${context.origin ? ` (${context.origin}, with its path)` : ''} against your account documentation: the credential's test checks it the same way. Nothing was found or changed.`;
	return new NodeApiError(
		node,
		{ status: 404, message, [ROUTE_UNKNOWN]: true },
		{ message, description, httpCode: '404', itemIndex: context.itemIndex },
	);
}

/** A 404 that is about the base URL, not about the record asked for. */
export function isRouteUnknown(error: unknown): boolean {
	return error instanceof NodeApiError && error.errorResponse?.[ROUTE_UNKNOWN] === true;
}
