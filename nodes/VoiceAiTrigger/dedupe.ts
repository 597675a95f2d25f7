/**
 * Conversation ids seen recently, per trigger (workflow, node and mode), kept in this n8n process's
 * memory. Static data would not do: n8n reloads a workflow's static data from the database before
 * it runs a webhook execution and never saves what the webhook step wrote to it.
 */
const seenByTrigger = new Map<string, Map<string, number>>();

/** Upper bound of remembered ids per trigger; the oldest are forgotten first. */
const MAX_REMEMBERED_IDS = 10_000;
const MAX_TRIGGERS = 1_000;

/**
 * Forgets the ids recorded for one delivery when n8n answers it with an error: n8n did not start the
 * run (it failed to store or queue the execution), so the service's next copy must start it. Any
 * other end keeps them, also a caller that went away before the answer (its timeout, a proxy): n8n
 * may have started the run by then, and the retry must not start a second one.
 *
 * The answer is judged when n8n ends it ('prefinish', which Node emits on end() even when the
 * socket is already gone; 'close' may come first and cannot tell). No answer at all keeps the ids.
 */
export function forgetUnlessAnswered(
	response: {
		once(event: 'prefinish', listener: () => void): unknown;
		statusCode: number;
	},
	scope: string,
	recorded: Array<[id: string, expiresAt: number]>,
): void {
	if (recorded.length === 0) return;
	response.once('prefinish', () => {
		if (response.statusCode >= 200 && response.statusCode < 300) return;
		const seen = seenByTrigger.get(scope);
		for (const [id, expiresAt] of recorded) {
			if (seen?.get(id) === expiresAt) seen.delete(id);
		}
	});
}

/**
 * Records `id` for `scope` for `windowMs` and returns its expiry, or undefined when it was already seen
 * within its window (a duplicate). Check and record happen in one synchronous step, so two concurrent
 * copies cannot both pass.
 */
export function remember(
	scope: string,
	id: string,
	windowMs: number,
	now: number,
): number | undefined {
	let seen = seenByTrigger.get(scope);
	if (seen === undefined) {
		if (seenByTrigger.size >= MAX_TRIGGERS) {
			seenByTrigger.delete(seenByTrigger.keys().next().value as string);
		}
		seen = new Map();
		seenByTrigger.set(scope, seen);
	}
	forgetExpired(seen, now);
	const known = seen.get(id);
	if (known !== undefined && known > now) return undefined;
	seen.delete(id);
	const expiresAt = now + windowMs;
	seen.set(id, expiresAt);
	while (seen.size > MAX_REMEMBERED_IDS) {
		seen.delete(seen.keys().next().value as string);
	}
	return expiresAt;
}

/** Entries are kept in insertion order with the same window, so expired ones sit at the front. */
function forgetExpired(seen: Map<string, number>, now: number): void {
	for (const [id, expiresAt] of seen) {
		if (expiresAt > now) return;
		seen.delete(id);
	}
}
