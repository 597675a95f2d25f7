// n8n's own community-node rule sets (the same ones `n8n-node lint` runs), applied to what we ship:
// credentials/, nodes/ and package.json. The sandbox (sandbox/), tests, scripts, benchmarks and scratch folders are
// development tools, not node code, and are not linted by these rules.
import { config } from '@n8n/node-cli/eslint';

export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'sandbox/**',
			'test/**',
			'scripts/**',
			'bench/**',
			'examples/**',
			'coverage/**',
			'.tmp/**',
			'.demo/**',
			'*.js',
			'*.mjs',
		],
	},
	...config,
];
