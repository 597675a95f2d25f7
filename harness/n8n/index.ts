/**
 * Real-n8n harness: starts the pinned n8n (from VOICEAI_N8N_DIR, see scripts/n8n-install.sh) with this
 * package installed the way n8n installs a community package, and drives it over n8n's own REST API.
 * Used by the e2e suite, `npm start` (scripts/demo.ts) and the benchmarks.
 *
 *   const stack = await startStack();                    // ../stack.ts: sandbox + n8n + owner + credential
 *   const n8n = await startN8n();                        // free port, temp user folder, package installed
 *   const api = await N8nApi.setupOwner(n8n.baseUrl);    // owner account, logged-in client
 *   const cred = await api.createVoiceAiCredential({ baseUrl: sandbox.baseUrl, apiKey });
 *   const wf = await api.importWorkflow(loadExample('crm-sync'), { voiceAiApi: cred });
 *   await api.activateWorkflow(wf);
 *   const runs = await api.waitForExecutions(wf.id, { count: 2 });
 *   await n8n.restart(); await api.login();              // same user folder, same port
 *   await n8n.close();                                   // stops it and removes a temp user folder
 *
 * - Installing: `npm pack` of the repo (exactly what npm publishes), unpacked into
 *   `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-voiceai`; node types are then
 *   `n8n-nodes-voiceai.voiceAi` and `n8n-nodes-voiceai.voiceAiTrigger` (NODE_TYPES). Build first.
 * - Process: loopback only, its own free port and task-broker port, telemetry and update checks off,
 *   production webhooks at `http://127.0.0.1:<port>/webhook/...` (N8N_WEBHOOK_URL). Output goes to
 *   `<userFolder>/n8n.log`; `tail()` returns its end for error messages.
 * - REST: cookie session plus the `browser-id` header n8n 2.x binds sessions to. Execution data
 *   comes back "flatted"; getExecution() decodes it with n8n's own copy of `flatted`.
 * - Waiting: pollUntil() with a bounded timeout everywhere; no fixed sleeps.
 */
export * from './lines';
export * from './wait';
export * from './install';
export * from './env';
export * from './process';
export * from './rest';
export * from './examples';
