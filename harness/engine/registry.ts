/** The node and credential types the engine knows, by name as a workflow file names them. */
import type {
	ICredentialType,
	INodeProperties,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { VoiceAiApi } from '../../credentials/VoiceAiApi.credentials';
import { VoiceAiSipLoginApi } from '../../credentials/VoiceAiSipLoginApi.credentials';
import { VoiceAiWithSipLoginApi } from '../../credentials/VoiceAiWithSipLoginApi.credentials';
import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node';

export const PACKAGE = 'n8n-nodes-voiceai';

export type AnyNodeType = INodeType | IVersionedNodeType;

export const nodeTypes: Record<string, AnyNodeType> = {
	[`${PACKAGE}.voiceAi`]: new VoiceAi(),
};

export const credentialTypes: Record<string, ICredentialType> = {
	voiceAiApi: new VoiceAiApi(),
	voiceAiSipLoginApi: new VoiceAiSipLoginApi(),
	voiceAiWithSipLoginApi: new VoiceAiWithSipLoginApi(),
};

/** A credential type's fields with those of the types it `extends`, as n8n's credentials helper merges them. */
export function credentialProperties(type: string): INodeProperties[] {
	const credentialType = credentialTypes[type];
	if (!credentialType) return [];
	const merged: INodeProperties[] = [];
	for (const parent of credentialType.extends ?? [])
		NodeHelpers.mergeNodeProperties(merged, credentialProperties(parent));
	NodeHelpers.mergeNodeProperties(merged, credentialType.properties);
	return merged;
}

export const INPUT_TYPE = 'harness.input';

/** n8n's HTTP Request node's parameters for a GET of `url` with the Voice AI credential (predefined type). */
export const httpGetWithVoiceAi = (url: string) => ({
	method: 'GET',
	url,
	authentication: 'predefinedCredentialType',
	nodeCredentialType: 'voiceAiApi',
	options: {},
});

export function resolveTypeName(name: string, registry: Record<string, AnyNodeType>): string {
	if (registry[name]) return name;
	if (registry[`${PACKAGE}.${name}`]) return `${PACKAGE}.${name}`;
	throw new Error(
		`harness: unknown node type "${name}" (known: ${Object.keys(registry).join(', ')})`,
	);
}

export function nodeTypeRegistry(extra: Record<string, AnyNodeType>): INodeTypes {
	const all = { ...nodeTypes, ...extra };
	return {
		getByName: (name) => all[resolveTypeName(name, all)],
		getByNameAndVersion: (name, version) =>
			NodeHelpers.getVersionedNodeType(all[resolveTypeName(name, all)], version),
		getKnownTypes: () => ({}),
	};
}
