import { type ClaimState, type JoinedState, JOINED, TRANSITIONS } from './transitions';

/**
 * Who holds each Voice AI organization's one webhook, inside this n8n process: shared by the
 * Voice AI Trigger and Webhook Set, so it lives below both nodes. Pure state, no I/O: each verb
 * returns the state it found, and transitions.ts says what the caller does in it.
 *
 * The spec gives no organization id and an organization may have several API keys: an entry here is
 * one organization as far as this process can tell (the hashes of the keys and the credentials seen
 * reaching it, and the agent ids those keys listed; see `relationOf`). Per organization: the claims
 * of published triggers in the order they were first made (the last one holds it), a test listen
 * borrowing it, and the URL Webhook Set pointed it at.
 */
export interface Claim {
	/** Workflow id and node id: one claim per trigger node. */
	id: string;
	workflowId: string;
	workflowName: string;
	/** n8n's production URL of the node, without the token. */
	productionUrl: string;
	/**
	 * The token registered with it; kept in memory only, so that another key can hand it back. A claim
	 * rebuilt from another trigger's record after a restart has none: its key derives it (`keyHash`).
	 */
	token?: string;
	/** When it was first claimed (ms): orders the claims again after a restart. */
	claimedAt: number;
	/** The hash of base URL and key it was claimed with. */
	keyHash: string;
	/** Its unpublish could not point the account elsewhere: n8n 2.x unpublishes it all the same. */
	releaseFailed?: boolean;
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

let lastDecision: Promise<unknown> = Promise.resolve();

/**
 * Runs one decision about an organization's webhook (publish, unpublish, a test listen's start or end,
 * Webhook Set) after the ones before it have finished, requests included: two decisions that read the
 * state before either wrote could leave the account on a URL nobody serves (an unpublish and the end of
 * a test listen at the same moment, each registering its own choice).
 */
export async function oneAtATime<T>(decide: () => Promise<T>): Promise<T> {
	const turn = lastDecision.then(decide, decide);
	lastDecision = turn.catch(() => undefined);
	return await turn;
}

export type Relation = 'same' | 'other' | 'unknown';

/**
 * Whether a key reaches an organization of this process. One key belongs to one organization; the
 * agents an organization's keys list are the same, and an agent id belongs to one organization (the
 * spec: another organization's id answers 404), so a shared agent id means the same organization and
 * two non-empty lists with none in common mean two. A new key in a credential (rotation) stays with
 * it unless its agents say otherwise. Anything else cannot be told: 'unknown'.
 */
export function relationOf(organization: Organization, identity: KeyIdentity): Relation {
	if (organization.keyHashes.has(identity.keyHash)) return 'same';
	const theirs = organization.agentIds;
	const mine = identity.agentIds;
	if (mine !== undefined && theirs !== undefined && (theirs.size > 0 || mine.length > 0)) {
		return mine.some((id) => theirs.has(id)) ? 'same' : 'other';
	}
	// Two spellings of one host (localhost, 127.0.0.1) are told apart by the agents above; without
	// them, another base URL is another service.
	if (organization.baseUrl !== identity.baseUrl) return 'other';
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

/** Whether this process has the claim (holding or waiting). */
export function hasClaim(id: string): boolean {
	return withClaim(id) !== undefined;
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
	| { outcome: 'refused'; holder: Claim; unsure: boolean }
	| { outcome: 'unknown' };

/** The events that make a claim (transitions.ts). */
export type ClaimEvent = 'publish' | 'publishAnyway' | 'publishTakingOver' | 'restart';

function joinedState(organization: Organization, id: string): JoinedState {
	if (holderIn(organization)?.id !== id) return 'behindAnother';
	if (organization.lentTo !== undefined) return 'lentToTest';
	return organization.setBy === undefined ? 'latest' : 'setElsewhere';
}

function insert(organization: Organization, wanted: Claim): void {
	const at = organization.claims.findIndex((c) => c.claimedAt > wanted.claimedAt);
	organization.claims.splice(at === -1 ? organization.claims.length : at, 0, { ...wanted });
}

/**
 * A published trigger wants its organization: TRANSITIONS says, for the event and the state it finds,
 * whether it is refused (`unsure`: the holder's organization cannot be told apart from this key's;
 * `unknown`: this process has not seen the organization since it started and the trigger's own record
 * does not say it held it) or joins the claims, and JOINED whether it then registers its URL or waits.
 */
export function claim(
	identity: KeyIdentity,
	wanted: Claim,
	event: ClaimEvent,
	recorded = false,
): ClaimOutcome {
	const previous = withClaim(wanted.id);
	const { mine: found, unsure } = find(identity);
	const others = unsure.filter((c) => c.id !== wanted.id);
	const holder = found === undefined ? undefined : holderIn(found);
	let state: ClaimState = holder === undefined ? 'free' : 'heldByAnother';
	if (found === undefined && !recorded) state = 'unknown';
	if (others.length > 0) state = 'heldUnsure';
	if (previous !== undefined) state = 'claimedByThis';
	const action = TRANSITIONS[event][state];
	if (action === 'refuseUnknown') return { outcome: 'unknown' };
	if (action === 'refuseUnsure') {
		return { outcome: 'refused', holder: others[others.length - 1], unsure: true };
	}
	if (action === 'refuse') return { outcome: 'refused', holder: holder!, unsure: false };
	if (previous !== undefined) previous.claims = previous.claims.filter((c) => c.id !== wanted.id);
	const mine = findOrAdd(identity).mine;
	insert(mine, wanted);
	return {
		outcome: JOINED[event === 'restart' ? 'restart' : 'publish'][joinedState(mine, wanted.id)],
	};
}

/** The claims queued before this one, oldest first (what its record keeps for a restart). */
export function queuedBefore(id: string): Claim[] {
	const claims = withClaim(id)?.claims ?? [];
	return claims
		.slice(
			0,
			claims.findIndex((c) => c.id === id),
		)
		.map((c) => ({ ...c }));
}

/**
 * The first delivery after a restart: the receiving trigger holds its organization, and the claims its
 * record says were queued behind it wait again (without tokens: their keys derive them).
 */
export function restore(identity: KeyIdentity, holder: Claim, queued: Claim[]): void {
	const { mine } = findOrAdd(identity);
	for (const claim of [...queued, holder]) {
		if (withClaim(claim.id) === undefined) insert(mine, claim);
	}
}

/**
 * A holder whose unpublish could not point the account elsewhere is a ghost once anything else acts on
 * its organization (n8n 2.x unpublishes it after its retries): forgotten here, and named to `warn`
 * (n8n's log) once.
 */
export function forgetGhosts(identity: KeyIdentity, warn: (message: string) => void): void {
	const { mine } = find(identity);
	if (mine === undefined) return;
	for (const ghost of mine.claims.filter((c) => c.releaseFailed)) {
		warn(
			`Voice AI: workflow "${ghost.workflowName}" (ID ${ghost.workflowId}) could not point the account webhook elsewhere when it was unpublished, so the account may still point at its URL; n8n has forgotten it as the holder. Unpublish and publish the workflow that should receive.`,
		);
	}
	mine.claims = mine.claims.filter((c) => !c.releaseFailed);
}

/** The claim's registration went through: a URL Webhook Set gave no longer stands. */
export function noteRegistered(id: string): void {
	const organization = withClaim(id);
	if (organization && holderIn(organization)?.id === id) organization.setBy = undefined;
}

export type Released =
	| { state: 'notHolding' }
	| { state: 'heldAlone' | 'heldDuringTest'; failed(): void }
	| { state: 'heldWithQueue'; next: Claim; failed(): void };

/**
 * A published trigger lets go (unpublished), found by the claim itself, whatever key its credential
 * holds now. The state (transitions.ts): it held the organization and another published trigger
 * waits (`next`), or none does, or a test listen borrows it right now (the end of the test points
 * the account on); or it did not hold it (it waited, or Webhook Set has it). `failed` keeps the claim,
 * marked, when the service refused what the release asked for: n8n tries the unpublish again.
 */
export function release(id: string): Released {
	const organization = withClaim(id);
	if (organization === undefined) return { state: 'notHolding' };
	const at = organization.claims.findIndex((c) => c.id === id);
	const [released] = organization.claims.splice(at, 1);
	const wasHolder = at === organization.claims.length;
	if (!wasHolder || organization.setBy !== undefined) return { state: 'notHolding' };
	const failed = () => insert(organization, { ...released, releaseFailed: true });
	const next = holderIn(organization);
	// During a test listen the test's end hands back to `next`; with none, On Unpublish waits for it.
	if (organization.lentTo !== undefined)
		return next === undefined ? { state: 'heldDuringTest', failed } : { state: 'notHolding' };
	return next === undefined
		? { state: 'heldAlone', failed }
		: { state: 'heldWithQueue', next, failed };
}

/** A test listen borrows the organization's webhook; returns the holder it must give it back to. */
export function lend(identity: KeyIdentity, testId: string): Claim | undefined {
	const { mine } = findOrAdd(identity);
	mine.lentTo = testId;
	return holderIn(mine);
}

export type GivenBack =
	| { state: 'setElsewhere'; url: string }
	| { state: 'held'; holder: Claim }
	| { state: 'free' | 'lentToAnotherTest' };

/** The test listen ends: the state the organization goes back to (transitions.ts: testListenEnd). */
export function giveBack(testId: string): GivenBack {
	const organization = organizations.find((o) => o.lentTo === testId);
	if (organization === undefined) return { state: 'lentToAnotherTest' };
	organization.lentTo = undefined;
	if (organization.setBy !== undefined)
		return { state: 'setElsewhere', url: organization.setBy.url };
	const holder = holderIn(organization);
	return holder === undefined ? { state: 'free' } : { state: 'held', holder };
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

/** Forget everything, as a process restart does (tests only: static data stays, modules stay loaded). */
export function forgetAllAccounts(): void {
	organizations.length = 0;
}
