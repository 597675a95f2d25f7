/**
 * End-to-end suite: a real n8n (VOICEAI_N8N_DIR, see scripts/n8n-install.sh) with the packed package
 * installed as a community package, driven over its REST API against the sandbox. Run after
 * `npm run build`, one file at a time (--runInBand): each file starts its own n8n.
 */
const path = require('path');

module.exports = {
	rootDir: path.resolve(__dirname, '..', '..'),
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	testTimeout: 120000,
	slowTestThreshold: 60,
};
