// n8n's own community-node rule sets (the same ones `n8n-node lint` runs), applied to what we ship.
// The sandbox, tests, scripts and benchmarks are development tools, not node code, and are not linted by them.
import { config } from '@n8n/node-cli/eslint';

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'test/**', 'scripts/**', 'bench/**', 'examples/**', '*.js', '*.mjs'] },
	...config,
];
