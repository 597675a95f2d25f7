/**
 * The bare reference: the least a node can do to make the same request with the same credential.
 * One `httpRequestWithAuthentication` per item, the JSON answer as the item. No validation, no retries.
 * Sequential by default; `concurrency` > 1 keeps that many requests in flight with a plain worker pool
 * (used as the engine's floor in the latency-bound scenario).
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export const REFERENCE_TYPE = 'bench.bareReference';

export class BareReference implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bare Reference',
		name: 'bareReference',
		group: ['transform'],
		version: 1,
		description: 'One authenticated GET per item',
		defaults: { name: 'Bare Reference' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'voiceAiApi', required: true }],
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('voiceAiApi');
		const count = this.getInputData().length;
		const concurrency = this.getNodeParameter('concurrency', 0) as number;
		const out: INodeExecutionData[] = new Array(count);
		let next = 0;
		const worker = async () => {
			while (next < count) {
				const item = next++;
				const path = this.getNodeParameter('path', item) as string;
				const json = await this.helpers.httpRequestWithAuthentication.call(this, 'voiceAiApi', {
					method: 'GET',
					url: `${baseUrl}${path}`,
					json: true,
				});
				out[item] = { json, pairedItem: { item } };
			}
		};
		await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
		return [out];
	}
}
