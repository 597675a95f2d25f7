// The package's main, for code that requires it by name. n8n reads package.json's `n8n` section instead;
// test/package/published-package.test.ts checks this exports exactly the classes listed there.
'use strict';

module.exports = {
	VoiceAi: require('./dist/nodes/VoiceAi/VoiceAi.node.js').VoiceAi,
	VoiceAiTrigger: require('./dist/nodes/VoiceAiTrigger/VoiceAiTrigger.node.js').VoiceAiTrigger,
	VoiceAiApi: require('./dist/credentials/VoiceAiApi.credentials.js').VoiceAiApi,
	VoiceAiSipLoginApi: require('./dist/credentials/VoiceAiSipLoginApi.credentials.js')
		.VoiceAiSipLoginApi,
	VoiceAiWithSipLoginApi: require('./dist/credentials/VoiceAiWithSipLoginApi.credentials.js')
		.VoiceAiWithSipLoginApi,
};
