/**
 * nodes/VoiceAi holds both VoiceAi.node.ts and its codex VoiceAi.node.json. Under tsx an extensionless
 * import of '.../VoiceAi.node' (as in harness/engine.ts) resolves to the .json file, so the harness
 * would get the codex instead of the node class. Imported first by the bench entries and test child processes run under tsx: it sends such
 * resolutions inside this repo's nodes/ folder to the .ts sibling. (jest resolves .ts before .json and
 * is not affected.)
 */
import { existsSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';

type Resolve = (request: string, parent: NodeModule | undefined, ...rest: unknown[]) => string;

const nodesFolder = join(__dirname, '..', 'nodes');
const moduleWithResolve = Module as unknown as { _resolveFilename: Resolve };
const original = moduleWithResolve._resolveFilename;

moduleWithResolve._resolveFilename = function (request, parent, ...rest) {
	const resolved = original.call(this, request, parent, ...rest);
	if (
		!request.endsWith('.json') &&
		resolved.startsWith(nodesFolder) &&
		resolved.endsWith('.node.json')
	) {
		const source = resolved.replace(/\.json$/, '.ts');
		if (existsSync(source)) return source;
	}
	return resolved;
};
