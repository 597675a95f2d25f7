/** What runNode takes and gives back. */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import type { AnyNodeType } from './registry';

export interface BinaryInput {
	data: Buffer | string;
	mimeType: string;
	fileName?: string;
	/** Keep the file in the item as base64, as n8n's memory binary mode does, instead of storing it. */
	inline?: boolean;
}

export interface InputItem {
	json?: IDataObject;
	binary?: Record<string, BinaryInput>;
}

/** The node's Settings tab, as n8n stores them on the node. */
export type NodeSettings = Partial<
	Pick<
		INode,
		| 'onError'
		| 'retryOnFail'
		| 'maxTries'
		| 'waitBetweenTries'
		| 'alwaysOutputData'
		| 'executeOnce'
		| 'continueOnFail'
	>
>;

export interface RunNodeOptions {
	nodeType?: string;
	typeVersion?: number;
	parameters?: INodeParameters;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	items?: InputItem[];
	continueOnFail?: boolean;
	settings?: NodeSettings;
	nodeTypes?: Record<string, AnyNodeType>;
	/** Name of the node under test in the workflow (default 'Voice AI'). */
	nodeName?: string;
	/** How n8n started the run, as `getMode()` reports it (default 'manual': "Execute workflow"). */
	mode?: WorkflowExecuteMode;
}

export interface RunNodeResult {
	items: INodeExecutionData[];
	outputs: INodeExecutionData[][];
	error?: Error & {
		httpCode?: string | null;
		description?: string | null;
		context?: IDataObject;
		errorResponse?: IDataObject;
	};
	/** Absent when n8n refused to start the workflow (WorkflowHasIssuesError in `error`). */
	run?: IRun;
}
