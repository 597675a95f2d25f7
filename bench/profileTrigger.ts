/**
 * `npm run bench:profile`: where n8n spends its time per delivery, Voice AI Trigger against n8n's
 * Webhook node (the workflows of the trigger scenario). One n8n per setting, started with --inspect;
 * for each receiver in turn, the CPU profiler of n8n's main thread runs while N deliveries arrive 10
 * in flight and n8n finishes them, and n8n's CPU per thread is read from /proc over the same window.
 *
 *   npx tsx bench/profileTrigger.ts [--settings lazy,likeForLike,defaults] [--deliveries 200] [--out .tmp/profile]
 *
 * Writes <out>/<setting>-<receiver>.cpuprofile (open in Chrome DevTools or VS Code) and prints, per
 * delivery: CPU by thread, main-thread self time by code, and the inclusive time of the functions
 * that tell the two receivers apart.
 */
import './env';

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { freePort } from '../harness/n8n';
import { startStack } from '../harness/stack';
import { Inspector } from './inspector';
import { cpuBetween, sampleCpu, waitUntilQuiet } from './procCpu';
import { summarize } from './profileSummary';
import { markdownTable } from './report';
import {
	publish,
	receivers,
	TRIGGER_SETTINGS,
	type TriggerSetting,
	sendInParallel,
} from './triggerWorkflows';

const CONCURRENCY = 10;

/** Functions whose inclusive time is reported: the trigger's steps and what n8n does around a webhook. */
const WATCH =
	/^(webhook|hasValidToken|apiKeyOf|getCredentials|_getCredentials|getDecrypted|getCredentialsEntity|decrypt|getNodeParameter|_getNodeParameter|getParameterValue|resolveSimpleParameterValue|evaluate|acquire|release|acquireIsolate|releaseIsolate|withIsolate|executeWebhook|runWebhook|getWorkflowStaticData|getNodeWebhookUrl|getWebhookMethods|checkProcessedAndRecord|runWorkflow|run|processRunExecutionData|saveExecution|updateExistingExecution|createNewExecution)$/;

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			settings: { type: 'string' },
			deliveries: { type: 'string' },
			out: { type: 'string' },
		},
	});
	const settings = (values.settings?.split(',') ?? ['lazy', 'likeForLike']) as TriggerSetting[];
	const deliveries = Number(values.deliveries ?? 200);
	const out = values.out ?? join(__dirname, '..', '.tmp', 'profile');
	mkdirSync(out, { recursive: true });

	for (const setting of settings) {
		const inspectPort = await freePort();
		const stack = await startStack({
			n8n: {
				env: TRIGGER_SETTINGS[setting].env,
				nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`],
				readyTimeoutMs: 600_000,
			},
		});
		try {
			const pid = stack.n8n.pid();
			if (pid === undefined) throw new Error('n8n is not running');
			const list = receivers();
			const { send } = await publish(stack, list);
			for (const receiver of list)
				for (let index = 0; index < 20; index++) await send[receiver.key]();
			await waitUntilQuiet(pid);
			const inspector = await Inspector.connect('127.0.0.1', inspectPort);
			const lines = [
				`## ${TRIGGER_SETTINGS[setting].label}: ${deliveries} deliveries, ${CONCURRENCY} in flight, per delivery`,
				'',
			];
			for (const receiver of list) {
				const before = sampleCpu(pid);
				await inspector.startProfiling(250);
				await sendInParallel(deliveries, CONCURRENCY, send[receiver.key]);
				await waitUntilQuiet(pid);
				const profile = await inspector.stopProfiling();
				const cpu = cpuBetween(before, sampleCpu(pid));
				const file = join(out, `${setting}-${receiver.key}.cpuprofile`);
				writeFileSync(file, JSON.stringify(profile));
				const summary = summarize(profile, WATCH);
				const per = (ms: number) => `${(ms / deliveries).toFixed(2)} ms`;
				lines.push(
					`### ${receiver.label} (${file})`,
					'',
					`n8n CPU per delivery (/proc): ${per(cpu.totalMs)}, main thread ${per(cpu.mainMs)}, other threads ${per(cpu.otherMs)}.`,
					'',
					markdownTable(
						['Thread (name)', 'CPU per delivery'],
						[...cpu.byName]
							.filter(([, ms]) => ms > 0)
							.sort((a, b) => b[1] - a[1])
							.map(([name, ms]) => [name, per(ms)]),
					),
					'',
					`Main thread, profiled (${per(summary.totalMs)} sampled, idle excluded), self time by code:`,
					'',
					markdownTable(
						['Code', 'Self time per delivery'],
						summary.byCode.map(([code, ms]) => [code, per(ms)]),
					),
					'',
					'Inclusive time of watched functions (over 0.05 ms per delivery):',
					'',
					markdownTable(
						['Function (file:line)', 'Inclusive per delivery'],
						summary.inclusive
							.filter((entry) => entry.ms / deliveries >= 0.05)
							.map((entry) => [entry.name, per(entry.ms)]),
					),
					'',
				);
			}
			inspector.close();
			const text = lines.join('\n');
			writeFileSync(join(out, `${setting}.md`), text);
			console.log(text);
		} finally {
			await stack.close();
		}
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
