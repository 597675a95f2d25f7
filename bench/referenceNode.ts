/**
 * The bare reference: the least a node can do to make the same request with the same credential.
 * One `httpRequestWithAuthentication` per item, in order, the JSON answer as the item. No validation,
 * no retries, no concurrency; it is the floor of "a node inside n8n's engine".
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

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
		properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('voiceAiApi');
		const out: INodeExecutionData[] = [];
		const count = this.getInputData().length;
		for (let item = 0; item < count; item++) {
			const path = this.getNodeParameter('path', item) as string;
			const json = await this.helpers.httpRequestWithAuthentication.call(this, 'voiceAiApi', {
				method: 'GET',
				url: `${baseUrl}${path}`,
				json: true,
			});
			out.push({ json, pairedItem: { item } });
		}
		return [out];
	}
}
