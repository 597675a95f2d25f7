import type { KeyIdentity, QueuedClaim } from './registration';

// What this n8n process knows of who receives each organization's one webhook; no requests.

/** In memory, the only place a claim's token is kept (none when rebuilt from a record). */
export type Claim = QueuedClaim & { token?: string; releaseFailed?: boolean };

export interface Organization {
	baseUrl: string;
	keyHashes: Set<string>;
	credentialIds: Set<string>;
	agentIds?: Set<string>;
	claims: Claim[]; // in the order first made: the last holds
	lentTo?: string; // the test listen borrowing the webhook
	setBy?: string; // the URL Webhook Set (or On Unpublish during a test) gave, restored after a test
	blind?: boolean; // entered only by a Go-Ahead test listen: who holds it is still unknown
	unreturned?: boolean; // a test's end could not give the webhook back: it still points at the test URL
}

let organizations: Organization[] = [];
/**
 * Publishes refused (or whose registration failed) in this process: n8n's retry runs `delete`,
 * which must not act on an older record nor drop it.
 */
const refusedPublishes = new Set<string>();
export function markPublishRefused(id: string, refused = true): void {
	if (refused) refusedPublishes.add(id);
	else refusedPublishes.delete(id);
}
/** n8n's `delete` after a refused publish of `id`: true once (the mark is used up). */
export const takeRefusedPublish = (id: string): boolean => refusedPublishes.delete(id);

/**
 * n8n gives a test listen its test URL only; the production one (its N8N_ENDPOINT_WEBHOOK included)
 * is learnt when this process publishes the node, in either way, or a delivery reaches it. By
 * webhook id.
 */
const productionUrls = new Map<string, string>();
export const learnProductionUrl = (webhookId: string, url: string) =>
	productionUrls.set(webhookId, url);
/**
 * Learnt; else, with `guess`, the test URL on n8n's default path segments
 * (N8N_ENDPOINT_WEBHOOK_TEST, N8N_ENDPOINT_WEBHOOK).
 */
export function productionUrlOf(webhookId: string, testUrl: string, guess: boolean) {
	const learnt = productionUrls.get(webhookId);
	if (learnt !== undefined || !guess) return learnt;
	const url = testUrl.replace('/webhook-test/', '/webhook/');
	return url === testUrl ? undefined : url;
}

export function forgetAllAccounts(): void {
	organizations = [];
	productionUrls.clear();
	refusedPublishes.clear();
}

// The steps of docs/trigger-ownership.md ("Whether a key reaches an entry's organization").
function relationOf(org: Organization, key: KeyIdentity): 'same' | 'other' | 'unknown' {
	if (org.keyHashes.has(key.keyHash)) return 'same';
	const [theirs, mine] = [org.agentIds, key.agentIds];
	if (mine !== undefined && theirs !== undefined && (theirs.size > 0 || mine.length > 0))
		return mine.some((id) => theirs.has(id)) ? 'same' : 'other';
	if (org.baseUrl !== key.baseUrl) return 'other';
	return key.credentialId && org.credentialIds.has(key.credentialId) ? 'same' : 'unknown';
}

export const holderOf = (org: Organization): Claim | undefined => org.claims.at(-1);
const byTime = (a: Claim, b: Claim) => a.claimedAt - b.claimedAt;
export const organizationWithClaim = (id: string) =>
	organizations.find((o) => o.claims.some((c) => c.id === id));
export const knowsKey = (hash: string): boolean =>
	organizations.some((o) => !o.blind && o.keyHashes.has(hash));

/**
 * The key's organizations (several when its agents join two), their holder, and that of one it
 * cannot tell apart.
 */
function view(key: KeyIdentity) {
	const holders = (orgs: Organization[]) => orgs.flatMap((o) => o.claims.slice(-1));
	const same = organizations.filter((o) => relationOf(o, key) === 'same');
	const unknown = organizations.filter((o) => relationOf(o, key) === 'unknown');
	const needsAgents = unknown.length > 0 || same.some((o) => !o.keyHashes.has(key.keyHash));
	const holder = holders(same).sort(byTime).pop();
	return { same, holder, unsure: holders(unknown).pop(), needsAgents };
}

export const isKnown = (key: KeyIdentity): boolean => view(key).same.some((o) => !o.blind);
export const needsAgents = (key: KeyIdentity): boolean => view(key).needsAgents;

/**
 * Not a claim whose unpublish failed: n8n may publish that workflow again (1.x, an edit) and must
 * run create.
 */
export function registeredHolder(id: string): Claim | undefined {
	const org = organizationWithClaim(id);
	const holder = org && !org.lentTo && !org.setBy && !org.unreturned ? holderOf(org) : undefined;
	return holder?.id === id && !holder.releaseFailed ? holder : undefined;
}

/**
 * The published holder Webhook Set would cut off (`unsure`: of an organization the key cannot be
 * told from).
 */
export function holderCutOffBySet(key: KeyIdentity) {
	const { holder, unsure } = view(key);
	return holder ? { holder, unsure: false } : unsure && { holder: unsure, unsure: true };
}

/**
 * The key's organization, added when new; entries its agents join are merged, and what it tells is
 * learnt.
 */
export function organizationFor(key: KeyIdentity): Organization {
	const learnt: Organization = {
		baseUrl: key.baseUrl,
		keyHashes: new Set([key.keyHash]),
		credentialIds: new Set(key.credentialId === undefined ? [] : [key.credentialId]),
		agentIds: key.agentIds && new Set(key.agentIds),
		claims: [],
	};
	const [org = learnt, ...rest] = view(key).same;
	if (org === learnt) organizations.push(learnt);
	for (const other of [...rest, learnt]) {
		other.keyHashes.forEach((hash) => org.keyHashes.add(hash));
		other.credentialIds.forEach((id) => org.credentialIds.add(id));
		// An empty list is knowledge too: an organization without agents is not one with agents.
		if (other.agentIds) org.agentIds = new Set([...(org.agentIds ?? []), ...other.agentIds]);
		org.claims = [...org.claims, ...other.claims].sort(byTime);
		org.lentTo ??= other.lentTo;
		org.setBy ??= other.setBy;
		org.unreturned ||= other.unreturned;
	}
	org.blind = [org, ...rest].every((o) => o.blind) || undefined;
	organizations = organizations.filter((o) => !rest.includes(o));
	return org;
}

/** After the claims made at or before it: the sort is stable. */
export function insert(org: Organization, claim: Claim): void {
	org.claims = [...org.claims, { ...claim }].sort(byTime);
	org.blind = undefined;
}

export type ClaimEvent = 'publish' | 'publishAnyway' | 'publishTakingOver' | 'restart';

/**
 * Joins in time order, the latest registering unless lent; refused as docs/trigger-ownership.md
 * says (`mayJoinUnknown`: Go Ahead).
 */
export function claim(key: KeyIdentity, wanted: Claim, event: ClaimEvent, mayJoinUnknown = false) {
	const previous = organizationWithClaim(wanted.id);
	// A claim rebuilt from a record (no token) may be of a workflow unpublished since: it keeps no
	// place.
	const keeps = previous?.claims.find((c) => c.id === wanted.id)?.token !== undefined;
	if (!keeps && event !== 'restart') {
		const { same, holder, unsure } = view(key);
		// Even taking over: handing back could point the organization it cannot be told from here.
		if (unsure) return { outcome: 'refused', holder: unsure, unsure: true } as const;
		if (holder && event !== 'publishTakingOver')
			return { outcome: 'refused', holder, unsure: false } as const;
		// Taking over too: whom it took from could not be given the account back.
		if (!same.some((o) => !o.blind) && !mayJoinUnknown && event !== 'publishAnyway')
			return { outcome: 'unknown' } as const;
	}
	if (previous) previous.claims = previous.claims.filter((c) => c.id !== wanted.id);
	const org = organizationFor(key);
	insert(org, wanted);
	// A publish that holds supersedes a URL waiting for a test's end (Webhook Set, On Unpublish).
	if (holderOf(org)?.id === wanted.id && event !== 'restart' && org.lentTo !== undefined)
		org.setBy = undefined;
	const latest = holderOf(org)?.id === wanted.id && org.lentTo === undefined;
	return { outcome: latest && !(org.setBy && event === 'restart') ? 'register' : 'wait' } as const;
}

/** The claims queued before this one, oldest first, as its record keeps them: without tokens. */
export function queueOf(id: string): QueuedClaim[] {
	const claims = organizationWithClaim(id)?.claims ?? [];
	const at = claims.findIndex((c) => c.id === id);
	return claims.slice(0, at).map((c) => {
		const { id, workflowId, workflowName, productionUrl, claimedAt, keyHash, credentialId } = c;
		return { id, workflowId, workflowName, productionUrl, claimedAt, keyHash, credentialId };
	});
}

/**
 * A published trigger lets go; only the holder's release asks for a hand-back to `next` or On
 * Unpublish.
 */
export function release(id: string) {
	const org = organizationWithClaim(id);
	if (org === undefined) return { state: 'notHolding' } as const;
	const at = org.claims.findIndex((c) => c.id === id);
	const [claim] = org.claims.splice(at, 1);
	const next = holderOf(org);
	if (at !== org.claims.length || org.setBy || (org.lentTo !== undefined && next))
		return { state: 'notHolding' } as const;
	if (org.lentTo !== undefined) return { state: 'heldDuringTest', claim, org } as const;
	if (next) return { state: 'heldWithQueue', next, claim, org } as const;
	return { state: 'heldAlone', claim, org } as const;
}

/** A test borrows the webhook; in an organization not known here (Go Ahead) it stays unknown. */
export function lend(key: KeyIdentity, testId: string): Claim | undefined {
	const blind = !isKnown(key);
	const org = organizationFor(key);
	org.lentTo = testId;
	if (blind) org.blind = true;
	return holderOf(org);
}

/**
 * Webhook Set gave the organization's webhook a URL (kept only where a claim or a test is known).
 */
export function setElsewhere(key: KeyIdentity, url: string): void {
	if (view(key).same.length > 0) organizationFor(key).setBy = url;
}

/**
 * The test's end: what to register again; an organization the test alone entered is forgotten
 * ('unknown').
 */
export function giveBack(testId: string) {
	const org = organizations.find((o) => o.lentTo === testId);
	if (org === undefined) return { state: 'lentToAnotherTest' } as const;
	org.lentTo = undefined;
	if (org.blind) organizations = organizations.filter((o) => o !== org);
	if (org.blind) return { state: 'unknown' } as const;
	return { state: 'known', org } as const;
}

/**
 * An organization whose webhook a test's end could not give back (the next decision there tries
 * again).
 */
export const unreturnedOf = (key: KeyIdentity) => view(key).same.find((o) => o.unreturned);

/** A test's end is giving the webhook back (`true`) or has given it back (`false`). */
export function markUnreturned(org: Organization, unreturned: boolean): void {
	org.unreturned = unreturned || undefined;
}

/** A claim registered its own URL: no URL Webhook Set gave, nor a dead test's, stands any more. */
export function registeredByClaim(org: Organization): void {
	org.setBy = undefined;
	org.unreturned = undefined;
}

/** On Unpublish's URL during a test: registered when the test ends. */
export function setAfterTest(org: Organization, url: string): void {
	org.setBy = url;
}

/** A claim rebuilt after a restart whose workflow n8n no longer serves (unpublished). */
export function dropGone(org: Organization, claim: Claim): void {
	org.claims = org.claims.filter((c) => c !== claim);
}

/**
 * Claims whose unpublish failed are ghosts once anything else acts on the organization: forgotten,
 * logged.
 */
export function forgetGhosts(key: KeyIdentity, logger: { warn: (message: string) => void }): void {
	for (const org of view(key).same) {
		for (const { workflowName, workflowId } of org.claims.filter((c) => c.releaseFailed))
			logger.warn(
				`Voice AI: workflow "${workflowName}" (ID ${workflowId}) could not point the account webhook elsewhere when it was unpublished, so the account may still point at its URL; n8n has forgotten it as the holder. Unpublish and publish the workflow that should receive.`,
			);
		org.claims = org.claims.filter((c) => !c.releaseFailed);
	}
}

/**
 * A publish that failed where this process could not tell: it stays unable to tell; `error` is
 * thrown.
 */
export function forget(org: Organization, error: Error): never {
	organizations = organizations.filter((o) => o !== org);
	throw error;
}
