/**
 * Imported first by suites that scan n8n's log output: n8n's logger reads its level once, when it is
 * first created, so the level must be set before n8n-core is loaded (test/setup-env.js keeps it silent).
 */
process.env.N8N_LOG_LEVEL = 'debug';

export const LOG_LEVEL = process.env.N8N_LOG_LEVEL;
