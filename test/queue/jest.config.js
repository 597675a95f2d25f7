/**
 * Queue-mode suite: n8n 2.40.7 in queue mode (Postgres, Redis, nginx, main, two webhook processors,
 * two workers; harness/queue) under load from the sandbox. Run after `npm run build`, in band.
 */
const path = require('path');

module.exports = {
	rootDir: path.resolve(__dirname, '..', '..'),
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.queue.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	testTimeout: 600000,
	slowTestThreshold: 300,
};
