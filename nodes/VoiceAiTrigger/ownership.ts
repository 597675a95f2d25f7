import { createHash } from 'crypto';

/**
 * Who holds each Voice AI account's one webhook, inside this n8n process.
 *
 * The service keeps one webhook URL per account, and a workflow's static data cannot see other
 * workflows, so the triggers of one process agree here. Pure state, no I/O: each verb says which
 * URL, if any, the caller must register. Accounts are keyed by a hash of base URL and API key.
 *
 * - Published triggers are claims, ordered by the time they were claimed; the last one holds the
 *   account. A claim while another published workflow holds the account is refused unless the new
 *   one takes over; releasing the holder hands the account to the claim before it.
 * - A test listen borrows the account; when it ends the account goes back to the holder, if any.
 */
export interface Claim {
	/** Workflow id and node id: one claim per trigger node. */
	id: string;
	workflowId: string;
	workflowName: string;
	/** n8n's production URL of the node, without the token. */
	productionUrl: string;
	/** When it was first claimed (ms): orders the claims again after a restart. */
	claimedAt: number;
}

interface Account {
	claims: Claim[];
	/** The trigger whose test listen holds the account right now. */
	lentTo?: string;
}

const accounts = new Map<string, Account>();

export function accountKey(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex');
}

function accountOf(key: string): Account {
	let account = accounts.get(key);
	if (account === undefined) {
		account = { claims: [] };
		accounts.set(key, account);
	}
	return account;
}

/** The published trigger the account belongs to, if any. */
export function holderOf(key: string): Claim | undefined {
	const claims = accounts.get(key)?.claims ?? [];
	return claims[claims.length - 1];
}

/**
 * Whether this process has seen the account since it started (a publish, an unpublish, a test
 * listen, or a delivery to a published trigger). n8n 2.x does not run a trigger's publish step again
 * when it restarts, so until then the process cannot tell whether a published workflow holds it.
 */
export function isKnown(key: string): boolean {
	return accounts.has(key);
}

/**
 * A production delivery reached a published trigger: after a restart, that is how it is found again.
 * `receiver` is called only for an account this process does not know yet (once, not per delivery).
 */
export function noteDelivery(key: string, receiver: () => Claim): void {
	if (!accounts.has(key)) claim(key, receiver(), { takeOver: false, restoring: true });
}

/**
 * A published trigger wants the account. `takeOver` lets it displace another holder; `restoring`
 * (n8n starting up) re-adds a claim that was accepted before, in its original order.
 * `register`: it holds the account now; `wait`: another claim holds it, or a test listen borrowed it
 * (the hand-back registers it); `refused`: another published trigger holds it.
 */
export function claim(
	key: string,
	wanted: Claim,
	how: { takeOver: boolean; restoring: boolean },
): { outcome: 'register' | 'wait' } | { outcome: 'refused'; holder: Claim } {
	const account = accountOf(key);
	const mine = account.claims.findIndex((c) => c.id === wanted.id);
	if (mine !== -1) account.claims.splice(mine, 1);
	const holder = account.claims[account.claims.length - 1];
	if (mine === -1 && holder !== undefined && !how.takeOver && !how.restoring) {
		return { outcome: 'refused', holder };
	}
	const at = account.claims.findIndex((c) => c.claimedAt > wanted.claimedAt);
	account.claims.splice(at === -1 ? account.claims.length : at, 0, { ...wanted });
	const holds = holderOf(key)!.id === wanted.id && account.lentTo === undefined;
	return { outcome: holds ? 'register' : 'wait' };
}

/**
 * A published trigger lets go (unpublished). `handOver`: it held the account and another published
 * trigger wants it; `lastOut`: it held the account and nobody else wants it; `none`: it did not hold
 * it (or a test listen does right now, and gives it back to whoever holds it then).
 */
export function release(
	key: string,
	id: string,
): { outcome: 'none' } | { outcome: 'lastOut' } | { outcome: 'handOver'; next: Claim } {
	const account = accounts.get(key);
	const at = account?.claims.findIndex((c) => c.id === id) ?? -1;
	if (account === undefined || at === -1) return { outcome: 'none' };
	const wasHolder = at === account.claims.length - 1;
	account.claims.splice(at, 1);
	if (!wasHolder || account.lentTo !== undefined) return { outcome: 'none' };
	const next = holderOf(key);
	return next === undefined ? { outcome: 'lastOut' } : { outcome: 'handOver', next };
}

/** A test listen borrows the account; returns the holder it must give it back to. */
export function lend(key: string, testId: string): Claim | undefined {
	accountOf(key).lentTo = testId;
	return holderOf(key);
}

/**
 * The test listen ends. Returns the holder to give the account back to, or undefined when no
 * published trigger wants it (or another test borrowed it since).
 */
export function giveBack(key: string, testId: string): Claim | undefined {
	const account = accounts.get(key);
	if (account === undefined || account.lentTo !== testId) return undefined;
	account.lentTo = undefined;
	return holderOf(key);
}

/** Tests only: forget everything, as a process restart does. */
export function forgetAllAccounts(): void {
	accounts.clear();
}
