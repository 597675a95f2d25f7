// The transport's public module: the only one code outside transport/ imports (eslint.config.mjs).
export type { VoiceAiAuthentication, VoiceAiCredentialType } from './authentication';
export { AUTHENTICATION, authenticationOf, credentialTypeOf } from './authentication';
export type { VoiceAiContext } from './context';
export type { VoiceAiCredential } from './credential';
export { isUnusableCredentialError, voiceAiCredential } from './credential';
export { httpUrl } from '../../../credentials/voiceAiBaseUrl';
export { headerValue } from './httpText';
export type { ApiPath, PathValue } from './path';
export { apiPath } from './path';
export { isPlainObject, setOwn } from './plainData';
export { RequestGate, RequestsStopped, forEachIndex } from './requestGate';
export { voiceAiApiRequest } from './request';
export type { RetrySettings } from './retrySettings';
export { Secrets } from './secrets';
