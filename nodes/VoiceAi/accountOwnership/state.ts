/**
 * Who holds each Voice AI organization's one webhook, inside this n8n process: shared by the
 * Voice AI Trigger (claims, test listens) and Webhook Set, so it lives below both nodes.
 *
 * The service keeps one webhook URL per organization and an organization may have several API keys;
 * the spec gives no organization id. An entry here is one organization as far as this process can
 * tell: the hashes of the keys and the credentials seen reaching it, and the agent ids those keys
 * listed (see `relationOf`). Pure state, no I/O: each verb says which URL, if any, the caller registers.
 *
 * - Published triggers are claims, ordered by the time they were claimed; the last one holds the
 *   organization. A claim while another published workflow holds it is refused unless the new one
 *   takes over; releasing the holder hands it to the claim before it.
 * - A test listen borrows it; when it ends it goes back to the holder, if any.
 * - Webhook Set, told to take it, points it elsewhere: the claims stay queued (as under a take-over)
 *   and the first to publish again, or a trigger that takes over, points it back at n8n.
 */
export interface Claim {
	/** Workflow id and node id: one claim per trigger node. */
	id: string;
	workflowId: string;
	workflowName: string;
	/** n8n's production URL of the node, without the token. */
	productionUrl: string;
	/** The token registered with it; kept in memory only, so that another key can hand it back. */
	token: string;
	/** When it was first claimed (ms): orders the claims again after a restart. */
	claimedAt: number;
}

/** What a caller knows about the key it holds. */
export interface KeyIdentity {
	/** The credential's base URL, normalised (no trailing slash). */
	baseUrl: string;
	/** sha256 of base URL and API key: the key itself is never kept. */
	keyHash: string;
	/** n8n's id of the credential the key came from: a rotated key stays in its credential. */
	credentialId?: string;
	/** The agent ids the key lists; undefined when they were not read or the answer is not a list. */
	agentIds?: string[];
}

interface Organization {
	baseUrl: string;
	keyHashes: Set<string>;
	credentialIds: Set<string>;
	/** Every agent id its keys listed; undefined while none of its keys' lists could be read. */
	agentIds?: Set<string>;
	claims: Claim[];
	/** The trigger whose test listen holds the organization's webhook right now. */
	lentTo?: string;
	/** Webhook Set pointed the webhook away from the holder (URL in memory only, to give it back after a test). */
	setBy?: { workflowId: string; workflowName: string; url: string };
}

const organizations: Organization[] = [];

export type Relation = 'same' | 'other' | 'unknown';

/**
 * Whether a key reaches an organization of this process. One key belongs to one organization; the
 * agents an organization's keys list are the same, and an agent id belongs to one organization (the
 * spec: another organization's id answers 404), so a shared agent id means the same organization and
 * two non-empty lists with none in common mean two. A new key in a credential (rotation) stays with
 * it unless its agents say otherwise. Anything else cannot be told: 'unknown'.
 */
export function relationOf(organization: Organization, identity: KeyIdentity): Relation {
	if (organization.baseUrl !== identity.baseUrl) return 'other';
	if (organization.keyHashes.has(identity.keyHash)) return 'same';
	const theirs = organization.agentIds;
	const mine = identity.agentIds;
	if (mine !== undefined && theirs !== undefined && theirs.size > 0) {
		if (mine.length === 0) return 'other';
		return mine.some((id) => theirs.has(id)) ? 'same' : 'other';
	}
	const credential = identity.credentialId;
	if (credential !== undefined && organization.credentialIds.has(credential)) return 'same';
	return 'unknown';
}

/** Whether reading the key's agents could change what `find` tells about it. */
export function needsAgents(identity: KeyIdentity): boolean {
	return (
		identity.agentIds === undefined &&
		organizations.some((organization) => {
			const relation = relationOf(organization, identity);
			return (
				relation === 'unknown' ||
				(relation === 'same' && !organization.keyHashes.has(identity.keyHash))
			);
		})
	);
}

function holderIn(organization: Organization): Claim | undefined {
	return organization.claims[organization.claims.length - 1];
}

/**
 * The organization the key reaches (several entries found to be one are merged), and the published
 * holders of organizations it cannot be told apart from.
 */
function find(identity: KeyIdentity): { mine?: Organization; unsure: Claim[] } {
	const same = organizations.filter((o) => relationOf(o, identity) === 'same');
	const unsure = organizations
		.filter((o) => relationOf(o, identity) === 'unknown')
		.flatMap((o) => {
			const holder = holderIn(o);
			return holder === undefined ? [] : [holder];
		});
	const [mine, ...rest] = same;
	for (const other of rest) {
		other.keyHashes.forEach((hash) => mine.keyHashes.add(hash));
		other.credentialIds.forEach((id) => mine.credentialIds.add(id));
		if (other.agentIds !== undefined) {
			mine.agentIds ??= new Set();
			other.agentIds.forEach((id) => mine.agentIds!.add(id));
		}
		mine.claims = [...mine.claims, ...other.claims].sort((a, b) => a.claimedAt - b.claimedAt);
		mine.lentTo ??= other.lentTo;
		mine.setBy ??= other.setBy;
		organizations.splice(organizations.indexOf(other), 1);
	}
	if (mine !== undefined) learn(mine, identity);
	return { mine, unsure };
}

function learn(organization: Organization, identity: KeyIdentity): void {
	organization.keyHashes.add(identity.keyHash);
	if (identity.credentialId !== undefined) organization.credentialIds.add(identity.credentialId);
	if (identity.agentIds !== undefined) {
		organization.agentIds ??= new Set();
		identity.agentIds.forEach((id) => organization.agentIds!.add(id));
	}
}

function findOrAdd(identity: KeyIdentity): { mine: Organization; unsure: Claim[] } {
	const { mine, unsure } = find(identity);
	if (mine !== undefined) return { mine, unsure };
	const added: Organization = {
		baseUrl: identity.baseUrl,
		keyHashes: new Set(),
		credentialIds: new Set(),
		claims: [],
	};
	learn(added, identity);
	organizations.push(added);
	return { mine: added, unsure };
}

function withClaim(id: string): Organization | undefined {
	return organizations.find((o) => o.claims.some((c) => c.id === id));
}

/** Whether this claim holds its organization's webhook right now (no test listen, no Webhook Set). */
export function holds(id: string): Claim | undefined {
	const organization = withClaim(id);
	if (organization === undefined || organization.lentTo !== undefined) return undefined;
	if (organization.setBy !== undefined) return undefined;
	const holder = holderIn(organization);
	return holder?.id === id ? holder : undefined;
}

/**
 * Whether this process has seen the key's organization since it started (a publish, an unpublish, a
 * test listen, or a delivery to a published trigger). n8n 2.x does not run a trigger's publish step
 * again when it restarts, so until then the process cannot tell whether a published workflow holds it.
 */
export function isKnown(identity: KeyIdentity): boolean {
	return find(identity).mine !== undefined;
}

/** Whether a key hash is one this process has seen (cheap: no agent list needed). */
export function knowsKey(baseUrlAndKeyHash: string): boolean {
	return organizations.some((o) => o.keyHashes.has(baseUrlAndKeyHash));
}

export type ClaimOutcome =
	| { outcome: 'register' | 'wait' }
	| { outcome: 'refused'; holder: Claim; unsure: boolean };

/**
 * A published trigger wants its organization. `takeOver` lets it displace another holder of the same
 * organization; `restoring` (n8n starting up) re-adds a claim accepted before, in its original order.
 * `register`: it holds it now; `wait`: another claim holds it, or a test listen borrowed it (the
 * hand-back registers it); `refused`: another published trigger holds it, or holds an organization
 * this key cannot be told apart from (`unsure`: then taking over is refused too, since handing back
 * with this key could point another organization at that workflow).
 */
export function claim(
	identity: KeyIdentity,
	wanted: Claim,
	how: { takeOver: boolean; restoring: boolean },
): ClaimOutcome {
	const previous = withClaim(wanted.id);
	const { mine, unsure } = findOrAdd(identity);
	const again = previous !== undefined;
	if (previous !== undefined) {
		previous.claims = previous.claims.filter((c) => c.id !== wanted.id);
	}
	const others = unsure.filter((c) => c.id !== wanted.id);
	if (!again && !how.restoring && others.length > 0) {
		return { outcome: 'refused', holder: others[others.length - 1], unsure: true };
	}
	const holder = holderIn(mine);
	if (!again && holder !== undefined && !how.takeOver && !how.restoring) {
		return { outcome: 'refused', holder, unsure: false };
	}
	const at = mine.claims.findIndex((c) => c.claimedAt > wanted.claimedAt);
	mine.claims.splice(at === -1 ? mine.claims.length : at, 0, { ...wanted });
	const top = holderIn(mine)!.id === wanted.id && mine.lentTo === undefined;
	// A publish registers over a URL Webhook Set gave; that URL stands until the registration succeeds.
	return { outcome: top && (mine.setBy === undefined || !how.restoring) ? 'register' : 'wait' };
}

/** The claim's registration went through: a URL Webhook Set gave no longer stands. */
export function noteRegistered(id: string): void {
	const organization = withClaim(id);
	if (organization && holderIn(organization)?.id === id) organization.setBy = undefined;
}

export type Released =
	| { outcome: 'none' }
	| { outcome: 'lastOut'; undo(): void }
	| { outcome: 'handOver'; next: Claim; undo(): void };

/**
 * A published trigger lets go (unpublished), found by the claim itself, whatever key its credential
 * holds now. `handOver`: it held the organization and another published trigger wants it; `lastOut`:
 * it held it and nobody else wants it; `none`: it did not hold it (or a test listen or Webhook Set
 * does right now). `undo` puts the claim back when the service refused what the release asked for.
 */
export function release(id: string): Released {
	const organization = withClaim(id);
	if (organization === undefined) return { outcome: 'none' };
	const at = organization.claims.findIndex((c) => c.id === id);
	const [released] = organization.claims.splice(at, 1);
	const wasHolder = at === organization.claims.length;
	if (!wasHolder || organization.lentTo !== undefined || organization.setBy !== undefined)
		return { outcome: 'none' };
	const undo = () => {
		const place = organization.claims.findIndex((c) => c.claimedAt > released.claimedAt);
		organization.claims.splice(place === -1 ? organization.claims.length : place, 0, released);
	};
	const next = holderIn(organization);
	return next === undefined ? { outcome: 'lastOut', undo } : { outcome: 'handOver', next, undo };
}

/** A test listen borrows the organization's webhook; returns the holder it must give it back to. */
export function lend(identity: KeyIdentity, testId: string): Claim | undefined {
	const { mine } = findOrAdd(identity);
	mine.lentTo = testId;
	return holderIn(mine);
}

/**
 * The test listen ends. Returns what to point the webhook at again: the URL Webhook Set gave, the
 * holder, or nothing when no published trigger wants it (or another test borrowed it since).
 */
export function giveBack(testId: string): { url: string } | { holder: Claim } | undefined {
	const organization = organizations.find((o) => o.lentTo === testId);
	if (organization === undefined) return undefined;
	organization.lentTo = undefined;
	if (organization.setBy !== undefined) return { url: organization.setBy.url };
	const holder = holderIn(organization);
	return holder === undefined ? undefined : { holder };
}

/**
 * Webhook Set is about to point the organization's webhook elsewhere. Returns the published holder
 * (or that of an organization the key cannot be told apart from, `unsure`), if any, without changing
 * anything.
 */
export function holderForSet(
	identity: KeyIdentity,
): { holder: Claim; unsure: boolean } | undefined {
	const { mine, unsure } = find(identity);
	const holder = mine === undefined ? undefined : holderIn(mine);
	if (holder !== undefined) return { holder, unsure: false };
	return unsure.length > 0 ? { holder: unsure[unsure.length - 1], unsure: true } : undefined;
}

/** Webhook Set pointed the organization's webhook at `url`: its published claims no longer receive. */
export function noteSet(
	identity: KeyIdentity,
	setBy: { workflowId: string; workflowName: string; url: string },
): void {
	const { mine } = find(identity);
	if (mine !== undefined) mine.setBy = { ...setBy };
}

/**
 * Forget everything, as a process restart does. Only tests call it: the restart scenarios (n8n 2.x does
 * not publish again on start, docs/trigger-ownership.md) need a process that forgets while the
 * workflows' static data stays, inside one test process whose node modules stay loaded.
 */
export function forgetAllAccounts(): void {
	organizations.length = 0;
}
