// The transport's public module: the only one code outside transport/ imports (eslint.config.mjs).
export * from './credential';
export {
	HALF_CHARACTER,
	LONE_SURROGATE,
	destinationProblem,
	httpUrl,
} from '../../../credentials/voiceAiBaseUrl';
export {
	headerValue,
	listIn,
	isPlainObject,
	refusedUserInfo,
	setOwn,
	shortened,
	withoutBom,
} from './answer';
export type { ApiPath, RetrySettings } from './request';
export { pathValueProblem, voiceAiApiRequest } from './request';
export { RequestsStopped, requestGate } from './concurrency';
export { invalidValue, isRouteUnknown } from './errors';
export { Secrets } from './secrets';
