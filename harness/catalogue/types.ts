import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../engine';

export type Json = string | number | boolean | null | object;

/** A request as the sandbox received it. */
export interface SentRequest {
	method: string;
	/** Path and query as sent, e.g. `/sip/%2B14155550101`. */
	url: string;
	/** A JSON body, parsed. */
	json?: unknown;
	/** A multipart/form-data body: its text fields, and its files as name, type and size. */
	form?: Record<string, string>;
	files?: Record<string, { filename: string; type: string; size: number }>;
}

/** A run's output items and error, from the engine harness or from a real n8n's execution data. */
export interface ExampleResult {
	items: Array<{ json: Record<string, unknown>; pairedItem?: unknown }>;
	error?: { message: string };
}

/** What the sandbox holds for the organization (its admin `state`), as far as the examples read it. */
export interface SandboxState {
	agents: Array<{ agentName: string; phoneNumber: string; selectedVoice: string; task: string }>;
	chatbots: Array<IDataObject & { id: string }>;
	sip: Array<{
		phone_number: string;
		trunkName: string;
		directions: Array<{ type: string; sip_endpoint: string; options: IDataObject }>;
	}>;
	webhook: string | null;
}

export interface Example {
	/** The node's parameters besides resource and operation. */
	parameters: INodeParameters;
	items?: InputItem[];
	/** Every request, in order (with several input items, in any order: items run concurrently). */
	sends: SentRequest[];
	/** Jest assertions on the run's output. */
	check(result: ExampleResult): void;
	/** Instead of `check` in the engine harness, where the operation needs what only n8n has. */
	checkInEngine?(result: ExampleResult): void;
	/** For an operation that changes data: Jest assertions on what the sandbox holds after the run. */
	holds?(state: SandboxState, result: ExampleResult): void;
}

/**
 * One invalid value. It goes in one of two ways:
 * - `literal`: typed into the parameter, so every item carries it and item 0 fails;
 * - otherwise through the expression `={{ $json.v }}`, with valid values in the items before it, so
 *   the failing item is `at` (default 2) and the value keeps its JSON type (42, {a:1}, [], null ...).
 */
export interface InvalidInput {
	/** Parameter path, e.g. `updateFields.header_color` or `directions.inbound.port`. */
	path: string;
	bad: Json;
	/** What the message must name, e.g. 'Header Color'. */
	label: string;
	/** The valid value the items before the failing one get (default: the base value at `path`). */
	good?: Json;
	literal?: boolean;
	at?: number;
	/** Extra parameters for this case (merged before `path` is set). */
	with?: INodeParameters;
	items?: InputItem[];
	/** Text that must NOT appear in the error (a secret of the wrong type). */
	notShown?: string;
}

/** Items of which one fails (a service error or an invalid value), for the error output. */
export interface FailingItem {
	/** Merged over the example's parameters. */
	parameters?: INodeParameters;
	items: InputItem[];
	/** The item that fails. */
	at: number;
	/** What its error's message must match, and its HTTP code when the service answered. */
	message: RegExp;
	httpCode?: string;
	/** In the engine harness, which has no n8n database, when more items fail there. */
	failsInEngine?: number[];
}

/** What a catalogue entry says about its operation: its example, its invalid inputs, its failing item. */
export interface OperationCases {
	example: Example;
	/** Valid parameters the invalid cases start from (default: the example's). */
	validBase?: INodeParameters;
	invalid: InvalidInput[];
	failing: FailingItem;
}

/** An operation's cases with what the registry says of it (nodes/VoiceAi/actions/registry.ts). */
export interface CatalogueEntry extends OperationCases {
	resource: string;
	operation: string;
	/** As the editor shows them. */
	resourceName: string;
	operationName: string;
	/** Its requests as the README shows them; null: the operation sends none. */
	request: string | null;
	/** after429: never repeated after a timeout or 5xx (the effect may have happened). */
	retried: 'always' | 'after429' | 'noRequest';
}
