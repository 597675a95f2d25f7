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
 * Records `id` for `scope` and tells whether it was already seen within `windowMs` (a duplicate).
 * Check and record happen in one synchronous step, so two concurrent copies cannot both pass.
 */
export function isDuplicate(scope: string, id: string, windowMs: number, now: number): boolean {
	let seen = seenByTrigger.get(scope);
	if (seen === undefined) {
		if (seenByTrigger.size >= MAX_TRIGGERS) {
			seenByTrigger.delete(seenByTrigger.keys().next().value as string);
		}
		seen = new Map();
		seenByTrigger.set(scope, seen);
	}
	forgetExpired(seen, now);
	const expiresAt = seen.get(id);
	if (expiresAt !== undefined && expiresAt > now) return true;
	seen.delete(id);
	seen.set(id, now + windowMs);
	while (seen.size > MAX_REMEMBERED_IDS) {
		seen.delete(seen.keys().next().value as string);
	}
	return false;
}

/** Entries are kept in insertion order with the same window, so expired ones sit at the front. */
function forgetExpired(seen: Map<string, number>, now: number): void {
	for (const [id, expiresAt] of seen) {
		if (expiresAt > now) return;
		seen.delete(id);
	}
}
