/**
 * `npm run test:unit`, the quick loop: every suite of jest.config.js except those that load code from a
 * real n8n install (VOICEAI_N8N_DIR): n8n's own HTTP Request node, and n8n's processed-data store that
 * Pass Once's cross-process tests run on Postgres. Nothing here installs or starts n8n.
 */
const base = require('./jest.config');

module.exports = {
	...base,
	testPathIgnorePatterns: [
		...base.testPathIgnorePatterns,
		'<rootDir>/test/node/http-request-node.test.ts',
		'<rootDir>/test/node/pass-once-processes.test.ts',
	],
};
