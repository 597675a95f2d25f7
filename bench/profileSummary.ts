/**
 * Reads a V8 CPU profile (.cpuprofile) of n8n's main thread and says where the time went: self time
 * by the code it belongs to (this package, n8n, n8n-core, the expression engine, the database, ...;
 * native code counts for the script that called it) and inclusive time of named functions (a
 * function's own time plus everything it called).
 */
import type { CpuProfile, CpuProfileNode } from './inspector';

/** Which body of code a stack frame belongs to, from its script URL. */
export function codeOf(frame: CpuProfileNode['callFrame']): string {
	const { url, functionName } = frame;
	if (url === '') {
		if (functionName === '(garbage collector)') return 'garbage collection';
		if (functionName === '(idle)') return 'idle';
		if (functionName === '(program)') return 'V8 and native code outside JavaScript';
		return 'native';
	}
	if (url.startsWith('node:')) return 'Node.js internals (http, streams, crypto, timers)';
	// The innermost node_modules folder names the package (n8n's own dependencies sit inside n8n's).
	const name = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]).at(-1);
	if (name === undefined) return 'other';
	if (name === 'n8n-nodes-voiceai') return 'this package (n8n-nodes-voiceai)';
	if (name === 'n8n-nodes-base') return "n8n's nodes (n8n-nodes-base)";
	if (name === 'n8n') return 'n8n (server: webhooks, executions, database layer)';
	if (name === 'n8n-core') return 'n8n-core';
	if (name === 'n8n-workflow') return 'n8n-workflow';
	if (name === '@n8n/expression-runtime' || name === 'isolated-vm')
		return 'expression engine (@n8n/expression-runtime, isolated-vm)';
	if (['typeorm', 'sqlite3', '@n8n/db', '@n8n/typeorm'].includes(name))
		return 'database (typeorm, sqlite3)';
	if (
		[
			'express',
			'body-parser',
			'raw-body',
			'router',
			'finalhandler',
			'send',
			'qs',
			'iconv-lite',
			'type-is',
			'content-type',
		].includes(name)
	)
		return 'HTTP framework (express, body-parser)';
	return 'other packages';
}

interface Summary {
	totalMs: number;
	byCode: Array<[string, number]>;
	inclusive: Array<{ name: string; ms: number }>;
}

function sampleDurations(profile: CpuProfile): number[] {
	// timeDeltas[i] is the time since the previous sample; sample i lasts until sample i + 1.
	const durations = profile.timeDeltas.slice(1).map((delta) => delta / 1000);
	durations.push(durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : 0);
	return durations;
}

function frameName(frame: CpuProfileNode['callFrame']): string {
	const file = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\//, '');
	return `${frame.functionName || '(anonymous)'} ${file ? `(${file}:${frame.lineNumber + 1})` : ''}`.trim();
}

/**
 * Self time grouped by code, and the inclusive time of each function whose name matches `watch`
 * (a function on the stack twice counts once per sample).
 */
export function summarize(profile: CpuProfile, watch: RegExp): Summary {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parent.set(child, node.id);
	const durations = sampleDurations(profile);
	/** Code of the nearest caller with a script: native frames (isolated-vm, crypto) count for it. */
	const nativeCaller = (id: number): string => {
		for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
			const frame = byId.get(at)?.callFrame;
			if (frame && frame.url !== '') return codeOf(frame);
		}
		return 'native';
	};
	const byCode = new Map<string, number>();
	const inclusive = new Map<string, number>();
	let totalMs = 0;
	profile.samples.forEach((id, index) => {
		const node = byId.get(id);
		if (!node) return;
		const ms = durations[index];
		let code = codeOf(node.callFrame);
		if (code === 'idle') return;
		if (code === 'native') code = nativeCaller(id);
		totalMs += ms;
		byCode.set(code, (byCode.get(code) ?? 0) + ms);
		const seen = new Set<string>();
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
			const frame = byId.get(at)?.callFrame;
			if (!frame || !watch.test(frame.functionName)) continue;
			const name = frameName(frame);
			if (seen.has(name)) continue;
			seen.add(name);
			inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
		}
	});
	return {
		totalMs,
		byCode: [...byCode].sort((a, b) => b[1] - a[1]),
		inclusive: [...inclusive].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms),
	};
}
