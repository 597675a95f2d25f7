/** The repository and the tarball npm would publish from it, as the package suites read them. */
import { execFile } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);
export const root = join(__dirname, '..', '..');

/** `npm pack` of the repo into the folder `into`, unpacked into `<into>/package`; returns that folder. */
export async function packAndUnpack(into: string): Promise<string> {
	const { stdout } = await execFileAsync(
		'npm',
		['pack', '--json', '--ignore-scripts', '--pack-destination', into],
		{ cwd: root },
	);
	const packed = join(into, (JSON.parse(stdout) as Array<{ filename: string }>)[0].filename);
	const dir = join(into, 'package');
	mkdirSync(dir);
	await execFileAsync('tar', ['-xzf', packed, '-C', dir, '--strip-components=1']);
	return dir;
}

/** The repo's node_modules linked into `dir`: the dist files require n8n-workflow, which n8n provides. */
export function linkRepoModules(dir: string): void {
	symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
}
