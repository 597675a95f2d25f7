// n8n-core writes a config into its user folder and would start task runners: keep both out of the way.
// Its logger reports every node error on the console; tests assert on errors themselves, so it stays quiet
// unless N8N_LOG_LEVEL is set.
const fs = require('fs');
const os = require('os');
const path = require('path');

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'voiceai-n8n-'));
}
process.env.N8N_RUNNERS_ENABLED = 'false';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';
