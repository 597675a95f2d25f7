/**
 * Runs nodes inside n8n-core's real WorkflowExecute, without a whole n8n: the engine, parameter and
 * expression resolution, `httpRequestWithAuthentication`, credential `authenticate` blocks, binary
 * data, continueOnFail and pairedItem all behave as in n8n. Nothing here mocks IExecuteFunctions.
 *
 * API
 *   runNode(options) → Promise<{ items, outputs, error, run }>
 *     options.nodeType     node type name, default 'n8n-nodes-voiceai.voiceAi' (also: 'voiceAi')
 *     options.parameters   the node's parameters as in a workflow file
 *     options.credentials  { voiceAiApi: { baseUrl, apiKey, authHeader? } } (defaults applied as n8n does)
 *     options.items        input items: { json, binary?: { prop: { data: Buffer|string, mimeType, fileName? } } }
 *                          (default: one empty item); binary goes through `prepareBinaryData` like a Read File node,
 *                          or stays in the item as base64 with `inline: true` (n8n's memory binary mode)
 *     options.continueOnFail  sets the node's onError to 'continueRegularOutput'
 *     options.settings     the node's Settings as a workflow file holds them: onError, retryOnFail, maxTries,
 *                          waitBetweenTries, alwaysOutputData, executeOnce (override continueOnFail)
 *     options.nodeTypes    extra node types { 'pkg.name': instance } (e.g. n8n's HTTP Request node)
 *     options.typeVersion  version of the node under test (default: its latest)
 *     → items    the node's first output (what the next node would get), [] when it failed
 *       outputs  every output of the node (with onError 'continueErrorOutput', [1] is the error output)
 *       error    the node's error as n8n records it (a plain object: name 'NodeApiError' / 'NodeOperationError',
 *                message, description, httpCode, context.itemIndex ...) when it failed, else undefined
 *       run      the whole IRun, for anything else (absent when n8n refused to start the workflow because
 *                the node has issues, e.g. a required parameter left empty: then `error` is that WorkflowHasIssuesError)
 *
 *   testCredential(type, data) → Promise<{ status: 'OK' | 'Error', message }>
 *     Runs a credential type's `test.request` as n8n's CredentialsTester does (a RoutingNode inside an
 *     ExecuteContext), e.g. testCredential('voiceAiApi', { baseUrl, apiKey }).
 *
 *   nodeTypes / credentialTypes   the registries used (add to them to run other packages' types).
 *   createAdditionalData(credentials, hooks?)   the additionalData runNode gives WorkflowExecute.
 *   HarnessCredentialsHelper      the credentials helper (n8n's generic-authenticate logic).
 *
 * The credentials helper mirrors n8n's own (packages/cli credentials-helper.ts): generic authenticate
 * blocks are resolved with `$credentials` through the workflow's expression engine, header names included.
 */
export * from './types';
export * from './registry';
export * from './credentials';
export * from './run';
