// The transport's public module: the only one code outside transport/ imports (eslint.config.mjs).
export type { VoiceAiAuthentication, VoiceAiCredentialType } from './authentication';
export { AUTHENTICATION, authenticationOf, credentialTypeOf } from './authentication';
export type { VoiceAiContext } from './context';
export type { VoiceAiCredential } from './credential';
export { isUnusableCredentialError, voiceAiCredential } from './credential';
export {
	HALF_CHARACTER,
	LONE_SURROGATE,
	destinationProblem,
	httpUrl,
} from '../../../credentials/voiceAiBaseUrl';
export { headerValue, refusedUserInfo, shortened, withoutBom } from './httpText';
export type { ApiPath, PathValue } from './path';
export { apiPath } from './path';
export { isPlainObject, setOwn } from './plainData';
export { forEachIndex } from './forEachIndex';
export { RequestGate, RequestsStopped } from './requestGate';
export { voiceAiApiRequest } from './request';
export { isRouteUnknown } from './routeCheck';
export type { RetrySettings } from './retrySettings';
export { Secrets } from './secrets';
