/** Node parameters several suites start from. */
import type { INodeParameters } from 'n8n-workflow';

/** A SIP direction with every field the spec shows filled in, besides the login. */
export const SIP_DIRECTION: INodeParameters = {
	sipEndpoint: 'sip:pbx.example.com',
	port: 5060,
	transport: 'udp',
	secureMedia: true,
};

/**
 * SIP Update of +14155550102's inbound direction with every field filled in, a login included, and
 * the directions not listed detached: the node then writes without reading the current
 * configuration first.
 */
export const sipUpdateWithLogin = (
	sipPassword: string,
	extra: INodeParameters = {},
): INodeParameters => ({
	resource: 'sip',
	operation: 'update',
	phoneNumber: '+14155550102',
	unlistedDirections: 'detach',
	directions: { inbound: { ...SIP_DIRECTION, sipUsername: 'frontdesk', sipPassword } },
	...extra,
});

/** Agent Create of one agent, with a task and a voice the test does not look at. */
export const agentCreate = (
	agentName: string,
	phoneNumber: string,
	extra: INodeParameters = {},
): INodeParameters => ({
	resource: 'agent',
	operation: 'create',
	phoneNumber,
	agentName,
	task: 'x',
	selectedVoice: 'paige',
	...extra,
});
