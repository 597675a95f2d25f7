import type { VoiceAiOperation } from './types';

/** One resource of the Voice AI node: its dropdown entry and its operations. */
export interface VoiceAiResource {
	/** Stored in users' workflows, like each operation's key: never change one. */
	value: string;
	name: string;
	/** By value; the first is the one a new node shows, and their fields come in this order. */
	operations: Record<string, VoiceAiOperation>;
}

export const defineResource = (resource: VoiceAiResource) => resource;
