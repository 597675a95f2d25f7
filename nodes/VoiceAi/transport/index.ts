// The transport's public module: the only one code outside transport/ imports (eslint.config.mjs).
export { isUnusableCredentialError, voiceAiCredential } from './credential';
export { headerValue, httpUrl } from './httpText';
export type { ApiPath, PathValue } from './path';
export { apiPath } from './path';
export { RequestGate, RequestsStopped, forEachIndex } from './requestGate';
export { voiceAiApiRequest } from './request';
export type { RetrySettings } from './retrySettings';
export { DEFAULT_RETRY, parseRetryAfter } from './retrySettings';
export { Secrets } from './secrets';
