/**
 * `npm run dev`, the inner loop, as n8n's `n8n-node dev`: the sandbox and a real n8n (primary line)
 * with this package installed, set up as `npm start` does. Each change under nodes/ or credentials/
 * (debounced) rebuilds as `npm run build` does, installs the build and restarts n8n on the same port
 * and user folder (owner, credentials, workflows stay); after a failed build (its errors printed) n8n
 * keeps the last good one. --port <5678> --sandbox-port <3001> --verbose; state in .demo/dev, reset.
 */
import { execFile } from 'node:child_process';
import { rmSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import * as harness from '../harness/n8n';
import * as setup from './demoSetup';

const run = promisify(execFile);
const WATCHED = ['nodes', 'credentials'];
const QUIET_MS = 300; // an editor's save is often several writes
const EDITORS_TEMPORARY = /(^|\/)\.|~$/; // swap and backup files

/** A fresh `npm pack` of the build in place of the installed package. */
async function reinstall(userFolder: string): Promise<void> {
	const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', userFolder];
	const { stdout } = await run('npm', args, { cwd: harness.REPO_ROOT });
	const tarball = join(userFolder, (JSON.parse(stdout) as Array<{ filename: string }>)[0].filename);
	const installed = join(userFolder, '.n8n', 'nodes', 'node_modules', harness.PACKAGE_NAME);
	rmSync(installed, { recursive: true, force: true });
	await harness.installPackage(userFolder, tarball); // the tarball stays, overwritten by the next
}

/** Runs `job` once changes pause for QUIET_MS, one run at a time (a change during a run: another after). */
function debounced(job: () => Promise<void>): () => void {
	let quiet: NodeJS.Timeout | undefined;
	let running = false;
	const changed = () => {
		clearTimeout(quiet);
		quiet = setTimeout(() => {
			if (running) return changed();
			running = true;
			void job()
				.catch((error: Error) => setup.say(`[dev] ${error.message}`))
				.finally(() => (running = false));
		}, QUIET_MS);
	};
	return changed;
}

let n8n: harness.N8nProcess | undefined;
const watchers: FSWatcher[] = [];
let closeSandbox = async () => {};
const stop = setup.stopper('\n[dev] stopping the watcher, n8n and the sandbox', async () => {
	for (const watcher of watchers) watcher.close();
	await n8n?.stop().catch(() => undefined);
	await closeSandbox();
});

async function main() {
	const port = setup.portOption('port', 5678);
	const userFolder = setup.freshStateDir('dev');
	const demo = await setup.startDemoSandbox(setup.portOption('sandbox-port', 3001), 'dev');
	closeSandbox = demo.close;
	setup.say(`[dev] starting n8n on port ${port} (state in ${userFolder})`);
	const started = (n8n = await harness.startN8n({
		userFolder,
		port,
		echo: process.argv.includes('--verbose'),
		onUnexpectedExit: (code) => setup.say(`[dev] n8n exited (${code}); a good build restarts it`),
	}));
	const api = await harness.N8nApi.setupOwner(started.baseUrl);
	await setup.setUpDemoWorkflows(api, demo.sandbox, started.baseUrl);
	const ready = (what: string) =>
		setup.sayLogin(started, `[dev] ${what}; watching ${WATCHED.join('/ and ')}/ (Ctrl-C stops)`);
	const changed = debounced(async () => {
		setup.say('[dev] change seen: building');
		const built = await run('bash', ['scripts/run.sh', 'build'], { cwd: harness.REPO_ROOT }).catch(
			(error: Error & { stdout: string; stderr: string }) => error,
		);
		if (built instanceof Error) {
			process.stderr.write(`${built.stdout}${built.stderr}`); // the compiler's errors
			return setup.say('[dev] build failed: n8n keeps running the last good build');
		}
		setup.say('[dev] built; restarting n8n');
		await reinstall(userFolder);
		await started.restart();
		await api.login();
		const loaded = (await api.nodeTypeNames()).includes(harness.NODE_TYPES.action);
		ready(`n8n restarted with the new build${loaded ? '' : ' but did NOT load it: see its log'}`);
	});
	const onChange = (_: string, file: string | null) =>
		EDITORS_TEMPORARY.test(file ?? '.') || changed();
	for (const dir of WATCHED)
		watchers.push(watch(join(harness.REPO_ROOT, dir), { recursive: true }, onChange));
	ready('n8n with n8n-nodes-voiceai is ready');
}

main().catch(async (error: Error) => {
	process.stderr.write(`[dev] failed: ${error.message}\n`);
	await stop(1);
});
