/** The parameters of a SIP operation as the SIP suites write them. */
import type { INodeParameters } from 'n8n-workflow';

/** SIP `operation` on `phoneNumber`, with the operation's other fields in `fields`. */
export const sipParameters = (
	operation: 'update' | 'detach',
	phoneNumber: string,
	fields: INodeParameters = {},
): INodeParameters => ({ resource: 'sip', operation, phoneNumber, ...fields });
