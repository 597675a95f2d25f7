/** The package installed into a user folder as n8n installs a community package: npm pack, unpacked. */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { PACKAGE_NAME, REPO_ROOT } from './lines';

const execFileAsync = promisify(execFile);
let packed: Promise<string> | undefined;

/** `npm pack` of the built repo, once per process. Returns the tarball path. */
export async function packPackage(): Promise<string> {
	if (!existsSync(join(REPO_ROOT, 'dist', 'nodes'))) {
		throw new Error('dist/ is missing: run `npm run build` first');
	}
	packed ??= (async () => {
		const out = mkdtempSync(join(tmpdir(), 'voiceai-pack-'));
		process.once('exit', () => rmSync(out, { recursive: true, force: true }));
		const { stdout } = await execFileAsync(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', out],
			{ cwd: REPO_ROOT },
		);
		const [{ filename }] = JSON.parse(stdout) as Array<{ filename: string }>;
		return join(out, filename);
	})();
	return await packed;
}

/** Unpacks the tarball where n8n keeps installed community packages. */
export async function installPackage(userFolder: string, tarball?: string): Promise<string> {
	const file = tarball ?? (await packPackage());
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	mkdirSync(target, { recursive: true });
	await execFileAsync('tar', ['-xzf', file, '-C', target, '--strip-components=1']);
	const version = (
		JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { version: string }
	).version;
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify(
			{ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: version } },
			null,
			2,
		),
	);
	return target;
}
