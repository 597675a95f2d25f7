import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the CLI leaves its base URL and admin token, so `npm run simulate` finds a running sandbox. */
export function connectionFile(baseUrl: string): string {
	const { hostname, port } = new URL(baseUrl);
	return join(tmpdir(), `voiceai-sandbox-${hostname.replace(/[^A-Za-z0-9.]/g, '_')}-${port}.json`);
}
