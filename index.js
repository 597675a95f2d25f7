/**
 * The package's `main`: the node and credential classes, for code that requires the package by name
 * (`require('n8n-nodes-voiceai').VoiceAi`). n8n itself never reads this file: it reads package.json's
 * `n8n` section and requires each file listed there, taking the class named by the file's name
 * (VoiceAi.node.js -> VoiceAi). test/package/published-package.test.ts checks that this file exports
 * exactly those classes, under those names, from the published tarball.
 */
'use strict';

const { VoiceAi } = require('./dist/nodes/VoiceAi/VoiceAi.node.js');
const { VoiceAiTrigger } = require('./dist/nodes/VoiceAiTrigger/VoiceAiTrigger.node.js');
const { VoiceAiApi } = require('./dist/credentials/VoiceAiApi.credentials.js');
const { VoiceAiSipLoginApi } = require('./dist/credentials/VoiceAiSipLoginApi.credentials.js');
const {
	VoiceAiWithSipLoginApi,
} = require('./dist/credentials/VoiceAiWithSipLoginApi.credentials.js');

module.exports = {
	VoiceAi,
	VoiceAiTrigger,
	VoiceAiApi,
	VoiceAiSipLoginApi,
	VoiceAiWithSipLoginApi,
};
