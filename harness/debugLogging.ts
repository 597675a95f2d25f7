/**
 * Imported first by suites that scan n8n's log output: n8n's logger reads its level once, when it is
 * first created, so the level must be set before n8n-core is loaded (test/setup-env.js keeps it silent).
 */
const previous = process.env.N8N_LOG_LEVEL;
process.env.N8N_LOG_LEVEL = 'debug';

/** Jest workers run several files in one process: put the level back for the next file. */
export function restoreLogLevel(): void {
	if (previous === undefined) delete process.env.N8N_LOG_LEVEL;
	else process.env.N8N_LOG_LEVEL = previous;
}
