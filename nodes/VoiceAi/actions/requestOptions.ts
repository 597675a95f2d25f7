import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RetrySettings } from '../transport';
import type { FieldRef } from './validation';
import { decimalText, fieldIn, readBoolean, readInteger } from './validation';

// Each option's default is written once, in its description below (n8n's lint wants a literal there);
// readRequestOptions takes its fallbacks from there.
const MAX_CONCURRENCY = 50;
const MAX_ATTEMPTS = 10;
/** Longest Max Retry Wait and Timeout a user may set. */
const MAX_SECONDS = 600;

/** The node's Options collection: how many requests run at once and how failures are retried. */
export const requestOptionsDescription: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
			default: 5,
			description: `How many items are sent to Voice AI at the same time (1 to ${MAX_CONCURRENCY}). Output order always follows input order. While the service answers 429 the node runs fewer at once.`,
		},
		{
			displayName: 'Max Attempts',
			name: 'maxAttempts',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_ATTEMPTS },
			default: 4,
			description:
				"Attempts per request including the first; 1 turns all retries off. These are the node's own retries: per request, within one run, only where repeating is safe. n8n's Retry On Fail (node Settings) runs the node again after these have given up, sending only the items that did not succeed.",
		},
		{
			displayName: 'Max Retry Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_SECONDS },
			default: 60,
			description: 'Longest single wait before a retry, whatever the Retry-After header asks for',
		},
		{
			displayName: 'Retry on Rate Limit',
			name: 'retryOnRateLimit',
			type: 'boolean',
			default: true,
			description:
				'Whether to wait for Retry-After and try again when the service answers 429. Always safe: a limited request did nothing.',
		},
		{
			displayName: 'Retry on Server Errors',
			name: 'retryOnServerErrors',
			type: 'boolean',
			default: true,
			description:
				'Whether to try again after 5xx answers, timeouts and dropped connections, with growing random delays. Only reads and updates are repeated; Agent Create never is, so no agent is created twice.',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_SECONDS },
			default: 30,
			description: 'How long to wait for one answer',
		},
	],
};

interface RequestOptions {
	concurrency: number;
	retry: RetrySettings;
}

/** An option as a field (its label is its displayName), with its default as the fallback. */
function option<T extends number | boolean>(name: string): { field: FieldRef; fallback: T } {
	const property = requestOptionsDescription.options!.find((entry) => entry.name === name);
	return {
		field: fieldIn([requestOptionsDescription], `options.${name}`),
		fallback: (property as INodeProperties).default as T,
	};
}

export function readRequestOptions(ctx: IExecuteFunctions): RequestOptions {
	const whole = (name: string, max: number) => {
		const { field, fallback } = option<number>(name);
		return readInteger(ctx, 0, field, fallback, { min: 1, max });
	};
	const flag = (name: string) => {
		const { field, fallback } = option<boolean>(name);
		return readBoolean(ctx, 0, field, fallback);
	};
	const seconds = (name: string, min: number) => {
		const { field, fallback } = option<number>(name);
		return Math.round(readNumber(ctx, field, fallback, min, MAX_SECONDS) * 1000);
	};
	return {
		concurrency: whole('concurrency', MAX_CONCURRENCY),
		retry: {
			rateLimit: flag('retryOnRateLimit'),
			serverErrors: flag('retryOnServerErrors'),
			maxAttempts: whole('maxAttempts', MAX_ATTEMPTS),
			maxWaitMs: seconds('maxWaitSeconds', 0),
			timeoutMs: seconds('timeoutSeconds', 0.001),
		},
	};
}

function readNumber(
	ctx: IExecuteFunctions,
	field: FieldRef,
	fallback: number,
	min: number,
	max: number,
): number {
	const raw = ctx.getNodeParameter(field.name, 0, fallback) as unknown;
	const value = decimalText(raw, false);
	if (typeof value !== 'number' || Number.isNaN(value) || value < min || value > max) {
		return readInteger(ctx, 0, field, fallback, { min, max });
	}
	return value;
}
