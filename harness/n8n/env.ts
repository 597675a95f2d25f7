/** The settings every n8n the harness starts shares, whatever its role: quiet, local, saving every run. */
import { join } from 'node:path';

import { knowsModule } from './lines';

export function harnessEnv(dir: string): NodeJS.ProcessEnv {
	return {
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		// Its refresh task calls api.n8n.io and logs a stack trace per attempt when offline. n8n 1.x has
		// no such module and refuses to start when an unknown one is named.
		...(knowsModule(dir, 'mcp-registry') ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		GENERIC_TIMEZONE: 'UTC',
		NODE_ENV: 'production',
		// V8's compiled code of n8n's modules, kept beside the install: each start after the first
		// skips recompiling them (about a sixth of a start's CPU here). It changes no behaviour.
		NODE_COMPILE_CACHE: join(dir, '.voiceai-compile-cache'),
	};
}
