/**
 * Imported first by the ownership model's suites: the backoffs between a request's attempts (at most
 * 2 s: nodes/VoiceAi/transport/pacing.ts, 4 attempts) are skipped; Timeout's deadlines (15 s and more)
 * keep their real timers, cancelled when the answer comes.
 */
jest.mock('n8n-workflow', () => {
	const actual = jest.requireActual<typeof import('n8n-workflow')>('n8n-workflow');
	const sleep = async (ms: number, signal?: AbortSignal) =>
		ms > 2_000 ? await actual.sleep(ms, signal) : undefined;
	return { ...actual, sleep };
});

export {};
