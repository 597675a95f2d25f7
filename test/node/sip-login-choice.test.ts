/**
 * SIP Login "SIP Trunk Login Credential" is offered only while Authentication is "API Key and SIP
 * Trunk Login" (issue 51, item 8): the option's displayOptions, read as n8n's editor reads them (the
 * editor of 1.123.81 and 2.40.7 keeps an option whose displayOptions `displayParameter` accepts, on
 * the node's parameters completed by `getNodeParameters`, and marks a value not among those as "not
 * supported"). Here with n8n-workflow's own two functions on the node's description.
 */
import type { INode, INodeParameters, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node';

const description = new VoiceAi().description;

function offered(name: string, parameters: INodeParameters): unknown[] {
	const node: INode = {
		id: 'node',
		name: 'Voice AI',
		type: 'n8n-nodes-voiceai.voiceAi',
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const values =
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			node,
			description,
		) ?? parameters;
	const property = description.properties.find(
		(candidate) =>
			candidate.name === name && NodeHelpers.displayParameter(values, candidate, node, description),
	);
	if (!property) return [];
	return (property.options as INodePropertyOptions[])
		.filter((option) =>
			NodeHelpers.displayParameter(values, option, node, description, undefined, 'displayOptions'),
		)
		.map((option) => option.value);
}

describe.each(['update', 'compare'])(
	'SIP %s: the SIP Login choices the editor offers',
	(operation) => {
		it('Authentication "API Key": only Fields in Each Direction', () => {
			expect(offered('sipLogin', { authentication: 'apiKey', resource: 'sip', operation })).toEqual(
				['fields'],
			);
			expect(offered('sipLogin', { resource: 'sip', operation })).toEqual(['fields']);
		});

		it('Authentication "API Key and SIP Trunk Login": both', () => {
			expect(
				offered('sipLogin', { authentication: 'apiKeyAndSipLogin', resource: 'sip', operation }),
			).toEqual(['fields', 'credential']);
		});
	},
);

it('Authentication itself still offers both ways', () => {
	expect(offered('authentication', { resource: 'sip', operation: 'update' })).toEqual([
		'apiKey',
		'apiKeyAndSipLogin',
	]);
});
