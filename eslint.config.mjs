// n8n's own community-node rule sets (the same ones `n8n-node lint` runs), applied to what we ship:
// credentials/, nodes/ and package.json. The sandbox (sandbox/), tests, scripts, benchmarks and scratch
// folders are development tools, not node code, and are not linted by these rules.
// On top of them, the layering of the shipped code:
// - nothing under nodes/ or credentials/ imports the sandbox, tests, the harness, benchmarks or scripts;
// - nothing outside test/ imports from test/: what the demo, scripts, benchmarks and tests share is in
//   harness/ (these folders are linted for that rule alone);
// - outside nodes/VoiceAi/transport/, code reaches the service only through the transport's
//   voiceAiApiRequest (nodes/VoiceAi/transport/request.ts), never n8n's HTTP helpers.
import { config } from '@n8n/node-cli/eslint';

const DEVELOPMENT_FOLDERS = ['sandbox', 'test', 'harness', 'bench', 'scripts'];
const SHIPPED = ['nodes/**/*.ts', 'credentials/**/*.ts'];

const notShipped = {
	group: DEVELOPMENT_FOLDERS.flatMap((folder) => [`**/${folder}`, `**/${folder}/**`]),
	message:
		'Shipped code (nodes/, credentials/) must not import the sandbox, tests, the harness, benchmarks or scripts: they are not published.',
};

const testsOnly = {
	group: ['**/test', '**/test/**'],
	message:
		'test/ holds tests: what scripts, benchmarks, the sandbox and the harness share with tests lives in harness/.',
};

// n8n's rules are for shipped code: applied to TypeScript under nodes/ and credentials/ only.
const forShipped = (entry) =>
	entry.files?.length === 1 && entry.files[0] === '**/*.ts' ? { ...entry, files: SHIPPED } : entry;
const typescriptParser = config.find((entry) => entry.languageOptions?.parser)?.languageOptions;

const directHttp = {
	selector:
		"MemberExpression[object.type='MemberExpression'][object.property.name='helpers'][property.name=/^(httpRequest|request)/]",
	message:
		"Requests to the service go through the transport's voiceAiApiRequest (retries, redirects refused, secrets redacted), not n8n's HTTP helpers.",
};

export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'examples/**',
			'coverage/**',
			'.tmp/**',
			'.demo/**',
			'*.js',
			'*.mjs',
		],
	},
	...config.map(forShipped),
	{
		files: ['sandbox/**/*.ts', 'harness/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		languageOptions: typescriptParser,
		rules: { 'no-restricted-imports': ['error', { patterns: [testsOnly] }] },
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: {
			'no-restricted-imports': ['error', { patterns: [notShipped] }],
		},
	},
	{
		files: ['nodes/**/*.ts'],
		ignores: ['nodes/VoiceAi/transport/**'],
		rules: {
			'no-restricted-syntax': ['error', directHttp],
		},
	},
];
