import type { IHttpRequestMethods } from 'n8n-workflow';

/**
 * A 2xx answer as the operation gets it. JSON is parsed. An empty body says the call succeeded and
 * with which status. A write (anything but GET) succeeded whatever it answered, so a body that is not
 * JSON comes back as text; a read needs JSON, so for a GET that is not a usable answer (`undefined`).
 */
export function successValue(
	answer: { text: string } | { value: unknown },
	method: IHttpRequestMethods,
	status: number,
): unknown {
	if ('value' in answer) return answer.value ?? { success: true, status };
	const text = answer.text;
	if (text.trim() === '') return { success: true, status };
	try {
		return JSON.parse(text);
	} catch {
		return method === 'GET' ? undefined : { success: true, status, body: text };
	}
}
