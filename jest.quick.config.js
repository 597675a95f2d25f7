/**
 * `npm run test:unit`, the quick loop: every suite of jest.config.js except the one that loads n8n's own
 * HTTP Request node from a real n8n install (VOICEAI_N8N_DIR). Nothing here installs or starts n8n.
 */
const base = require('./jest.config');

module.exports = {
	...base,
	testPathIgnorePatterns: [
		...base.testPathIgnorePatterns,
		'<rootDir>/test/node/http-request-node.test.ts',
	],
};
