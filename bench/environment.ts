/** Machine and versions, as rows of [name, value] for the results. */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

function packageVersion(name: string, from?: string): string {
	try {
		const file = require.resolve(`${name}/package.json`, from ? { paths: [from] } : undefined);
		return (require(file) as { version: string }).version;
	} catch {
		return 'not found';
	}
}

function gitCommit(root: string): string {
	try {
		const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
			cwd: root,
			encoding: 'utf8',
		}).trim();
		const dirty = execFileSync(
			'git',
			['status', '--porcelain', '--', 'nodes', 'credentials', 'bench'],
			{ cwd: root, encoding: 'utf8' },
		).trim();
		return dirty
			? `${commit} (with uncommitted changes in nodes/, credentials/ or bench/)`
			: commit;
	} catch {
		return 'unknown';
	}
}

export function describeEnvironment(n8nDir: string): string[][] {
	const root = join(__dirname, '..');
	const cpu = cpus();
	const install = join(n8nDir, 'node_modules', 'n8n');
	return [
		[
			'CPU',
			`${cpu[0]?.model ?? 'unknown'}, ${cpu.length} logical cores (shared with other work on this machine)`,
		],
		['Memory', `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`],
		['OS', `Linux ${release()}`],
		[
			'Load average at start (1/5/15 min)',
			loadavg()
				.map((value) => value.toFixed(2))
				.join(' / '),
		],
		['Node.js', process.version],
		[
			'n8n-nodes-voiceai',
			`${(require(join(root, 'package.json')) as { version: string }).version}, commit ${gitCommit(root)}, dist/ build`,
		],
		['n8n-core (engine used)', packageVersion('n8n-core')],
		['n8n-workflow', packageVersion('n8n-workflow')],
		[
			'n8n (install the HTTP Request node comes from)',
			`${packageVersion('n8n', install)} at ${n8nDir.replace(process.env.HOME ?? '\0', '~')}`,
		],
		['n8n-nodes-base', packageVersion('n8n-nodes-base', install)],
		['undici (raw loop)', packageVersion('undici')],
	];
}
