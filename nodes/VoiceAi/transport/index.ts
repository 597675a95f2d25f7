// The transport's public module: the only one code outside transport/ imports (eslint.config.mjs).
export * from './answer';
export * from './credential';
export { type ApiCall, type ApiPath, runRequests, voiceAiApiRequest } from './request';
export { RequestGate, RequestsStopped, untilAborted } from './concurrency';
export { invalidValue, isRouteUnknown } from './errors';
export { Secrets } from './secrets';
