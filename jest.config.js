/** Unit and engine suites: the nodes run in n8n-core's WorkflowExecute against the sandbox over HTTP. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', isolatedModules: true }],
	},
	setupFiles: ['<rootDir>/test/setup-env.js'],
	testTimeout: 30000,
};
