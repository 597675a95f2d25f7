/** Which n8n: the package's names in it, the lines tested (scripts/n8n-lines.json), install folders, versions. */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-voiceai';
export const NODE_TYPES = {
	action: `${PACKAGE_NAME}.voiceAi`,
	trigger: `${PACKAGE_NAME}.voiceAiTrigger`,
} as const;
export const CREDENTIAL_TYPE = 'voiceAiApi';

export const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'VoiceAi-demo-2026',
};
export type Owner = typeof DEFAULT_OWNER;

/** The n8n lines the package is tested on (scripts/n8n-lines.json, the one place naming them). */
export const N8N_LINES = JSON.parse(
	readFileSync(join(REPO_ROOT, 'scripts', 'n8n-lines.json'), 'utf8'),
) as {
	primary: string;
	lines: Array<{ version: string; role: string; editor: boolean }>;
	everyLine: string[];
};

/** Where scripts/n8n-install.sh puts n8n `version` (VOICEAI_CACHE as in scripts/node24.sh). */
export function installDir(version = N8N_LINES.primary): string {
	const cache = process.env.VOICEAI_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-voiceai');
	return join(cache, `n8n-${version}`);
}

/**
 * Folder of the n8n install under test: VOICEAI_N8N_DIR (scripts/run.sh exports what
 * scripts/n8n-install.sh prints), else the primary line's install in the cache when it is there.
 */
export function n8nDir(): string {
	const dir = process.env.VOICEAI_N8N_DIR ?? installDir();
	if (!existsSync(join(dir, 'node_modules', 'n8n', 'bin', 'n8n'))) {
		throw new Error(
			'VOICEAI_N8N_DIR must point at a real n8n install: run `export VOICEAI_N8N_DIR="$(bash scripts/n8n-install.sh)"`',
		);
	}
	return dir;
}

/** Version of the n8n install in `dir` (VOICEAI_N8N_DIR): the e2e suites run on more than one. */
export function n8nVersion(dir = n8nDir()): string {
	return (
		JSON.parse(readFileSync(join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8')) as {
			version: string;
		}
	).version;
}

/** Whether this n8n has the backend module `name` (N8N_DISABLED_MODULES accepts only known ones). */
export function knowsModule(dir: string, name: string): boolean {
	const list = join(
		dir,
		'node_modules',
		'@n8n',
		'backend-common',
		'dist',
		'modules',
		'modules.config.js',
	);
	return existsSync(list) && readFileSync(list, 'utf8').includes(`'${name}'`);
}
