import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { fieldIn, readBoolean, readInteger } from './validation';

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
			typeOptions: { minValue: 1, maxValue: 50 },
			default: 5,
			description:
				'How many items are sent to Voice AI at the same time (1 to 50). Output order always follows input order. While the service answers 429 the node runs fewer at once.',
		},
		{
			displayName: 'Max Attempts',
			name: 'maxAttempts',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10 },
			default: 4,
			description:
				"Attempts per request including the first; 1 turns all retries off. These are the node's own retries: per request, within one run, only where repeating is safe. n8n's Retry On Fail (node Settings) runs the node again after these have given up, sending only the items that did not succeed.",
		},
		{
			displayName: 'Max Retry Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 600 },
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
			typeOptions: { minValue: 1, maxValue: 600 },
			default: 30,
			description:
				'How long one attempt may take, from sending the request to the last byte of the answer. A run ends at the latest after (2 × items + 1) × Max Attempts × (Timeout + Max Retry Wait + 1 s); Stop ends it at once.',
		},
	],
};

/** The Options, read once per execution (item 0) within the bounds and with the defaults above. */
export function readRequestOptions(ctx: IExecuteFunctions) {
	const field = (name: string) => fieldIn([requestOptionsDescription], `options.${name}`);
	const option = (name: string) =>
		requestOptionsDescription.options!.find((entry) => entry.name === name) as INodeProperties;
	const flag = (name: string) => readBoolean(ctx, 0, field(name), option(name).default as boolean);
	const number = (name: string, min = 1, decimals?: true) => {
		const { default: fallback, typeOptions } = option(name);
		const max = typeOptions!.maxValue!;
		return readInteger(ctx, 0, field(name), fallback as number, { min, max, decimals });
	};
	// A timeout from an expression may be under the editor's 1 s.
	const ms = (name: string, min: number) => Math.round(number(name, min, true) * 1000);
	return {
		concurrency: number('concurrency'),
		retry: {
			rateLimit: flag('retryOnRateLimit'),
			serverErrors: flag('retryOnServerErrors'),
			maxAttempts: number('maxAttempts'),
			maxWaitMs: ms('maxWaitSeconds', 0),
			timeoutMs: ms('timeoutSeconds', 0.001),
		},
	};
}
