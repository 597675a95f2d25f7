import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export type VoiceAiContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/** One call to the Voice AI API with the node's credential. The key travels only in a header. */
export async function voiceAiApiRequest(
	this: VoiceAiContext,
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject | IDataObject[] | FormData,
	extra: Partial<IHttpRequestOptions> = {},
): Promise<unknown> {
	const credentials = await this.getCredentials('voiceAiApi');
	const baseUrl = String(credentials.baseUrl).replace(/\/+$/, '');
	const options: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		json: true,
		...extra,
	};
	if (body !== undefined) options.body = body;
	return await this.helpers.httpRequestWithAuthentication.call(this, 'voiceAiApi', options);
}
