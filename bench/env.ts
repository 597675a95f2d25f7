/** Imported first by every bench entry: n8n-core reads these when it loads. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.N8N_USER_FOLDER) {
	const folder = mkdtempSync(join(tmpdir(), 'voiceai-bench-'));
	process.env.N8N_USER_FOLDER = folder;
	process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
}
process.env.N8N_RUNNERS_ENABLED = 'false';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';
