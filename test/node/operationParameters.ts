/** Parameters of operations the node suites write often (more in harness/parameters.ts). */
import type { INodeParameters } from 'n8n-workflow';

/** SIP `operation` on `phoneNumber`, with the operation's other fields in `fields`. */
export const sipParameters = (
	operation: 'update' | 'detach',
	phoneNumber: string,
	fields: INodeParameters = {},
): INodeParameters => ({ resource: 'sip', operation, phoneNumber, ...fields });

/** Chatbot Update of `chatbotId` with `updateFields`. */
export const chatbotUpdate = (
	chatbotId: string,
	updateFields: INodeParameters,
): INodeParameters => ({
	resource: 'chatbot',
	operation: 'update',
	chatbotId,
	updateFields,
});
