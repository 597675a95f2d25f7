/**
 * Which files a deployment left on disk hold a secret, by exact value: logs of nginx, Redis and each
 * n8n process, n8n's user folders. Postgres' data (n8n's database, where credentials are stored
 * encrypted and the suite reads executions through n8n) and installed packages are not scanned.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const NOT_SCANNED = new Set(['postgres', 'node_modules']);

/** "file: name of the secret" for each file holding one. */
export function filesHoldingSecrets(root: string, secrets: Record<string, string>): string[] {
	const found: string[] = [];
	const visit = (dir: string) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) {
				if (!NOT_SCANNED.has(entry.name)) visit(path);
				continue;
			}
			if (!entry.isFile()) continue;
			const text = readFileSync(path, 'latin1');
			for (const [name, value] of Object.entries(secrets))
				if (value && text.includes(value)) found.push(`${relative(root, path)}: ${name}`);
		}
	};
	visit(root);
	return found;
}
