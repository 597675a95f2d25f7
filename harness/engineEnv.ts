/**
 * For an e2e file that also runs the engine harness (harness/triggerWorkflow.ts) in the jest process:
 * n8n-core writes its config into a user folder, so it gets a temporary one of its own, and its logger
 * stays quiet. Import it before the harness. The real n8n gets its own values for both (startN8n).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'voiceai-engine-'));
process.env.N8N_LOG_LEVEL ??= 'silent';
