/** Unit and engine suites: the nodes run in n8n-core's WorkflowExecute against the sandbox over HTTP. */
const { compilerOptions } = require('./tsconfig.json');

module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		// Transpile only (`tsc -p tsconfig.test.json` type-checks everything in `npm test`).
		'^.+\\.ts$': [
			'ts-jest',
			{ tsconfig: { ...compilerOptions, types: ['node', 'jest'], declaration: false, sourceMap: true, isolatedModules: true } },
		],
	},
	setupFiles: ['<rootDir>/test/setup-env.js'],
	testTimeout: 30000,
};
