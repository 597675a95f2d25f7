import type { IExecuteData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * n8n's Retry On Fail runs the node again within one run of it, handing every try the same IExecuteData
 * and input array (WorkflowExecute's try loop, 1.x and 2.x, main process and queue worker alike). A new
 * run, execution or AI tool call gets new ones, so shares nothing, and an entry goes with its data.
 */
const triesOfRun = new WeakMap<
	INodeExecutionData[],
	{ executeData: IExecuteData; successes: Array<INodeExecutionData[] | undefined> }
>();

/** What earlier tries of this run of the node sent successfully: per input item, its output items. */
interface EarlierTries {
	success(itemIndex: number): INodeExecutionData[] | undefined;
	record(itemIndex: number, output: INodeExecutionData[]): void;
}
const nothingKept: EarlierTries = { success: () => undefined, record: () => {} };

export function earlierTries(ctx: IExecuteFunctions, items: INodeExecutionData[]): EarlierTries {
	const executeData = typeof ctx.getExecuteData === 'function' ? ctx.getExecuteData() : undefined;
	if (ctx.getNode().retryOnFail !== true || !executeData) return nothingKept;
	let tries = triesOfRun.get(items);
	if (tries?.executeData !== executeData || tries.successes.length !== items.length) {
		tries = { executeData, successes: new Array(items.length) };
		triesOfRun.set(items, tries);
	}
	const { successes } = tries;
	return {
		success: (itemIndex) => successes[itemIndex],
		record: (itemIndex, output) => (successes[itemIndex] = output),
	};
}
