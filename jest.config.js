/** Unit and engine suites: the nodes run in n8n-core's WorkflowExecute against the sandbox over HTTP. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/', '<rootDir>/test/queue/'],
	transform: {
		// tsconfig.test.json sets isolatedModules, so ts-jest transpiles file by file without type-checking;
		// `tsc -p tsconfig.test.json` type-checks everything in `npm test`.
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/setup-env.js'],
	testTimeout: 30000,
};
