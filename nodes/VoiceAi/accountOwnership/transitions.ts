/**
 * What a Voice AI Trigger does with its organization's one webhook, as data: for each event n8n (or
 * the service) brings, and each state the organization is in as this process knows it, the action.
 * state.ts reads the state and keeps the claims; nodes/VoiceAiTrigger/ownership.ts performs the
 * action (the requests to the service, the errors). docs/trigger-ownership.md explains the rules.
 */

/** The events, as n8n calls the trigger (the node's parameters pick between two variants). */
export type OwnershipEvent =
	/** create, trigger mode, activation activate/update; If Another Workflow Holds It = Fail to Publish. */
	| 'publish'
	/** The same with If Nobody Can Tell Who Holds It = Go Ahead. */
	| 'publishAnyway'
	/** The same with Take Over the Account Webhook. */
	| 'publishTakingOver'
	/** create at activation init/leadershipChange: n8n (1.x, or 2.x without the publication service) starts. */
	| 'restart'
	/** webhook() of a published trigger: the first delivery after a restart tells who holds the account. */
	| 'firstDelivery'
	/** delete of a production registration; On Unpublish = Leave the Account Webhook Unchanged. */
	| 'unpublish'
	/** The same with On Unpublish = Point to a URL I Give. */
	| 'unpublishToUrl'
	/** create in manual mode (Execute step, Listen for test event); If Nobody Can Tell Who Holds It = Refuse. */
	| 'testListen'
	/** The same with Listen Anyway. */
	| 'testListenAnyway'
	/** delete of a test registration: a delivery, Stop listening, or the timeout (the test gives back). */
	| 'testListenEnd';

/**
 * The organization as a publish (or restart) finds it. In this order: this trigger already has a
 * claim (it holds or waits); a published trigger holds an organization this key cannot be told apart
 * from; another published trigger of the same organization holds it; nobody does; this process has not
 * seen the organization since it started (n8n 2.x after a restart) and the trigger's own record does
 * not say it held it, so nobody can tell.
 */
export type ClaimState = 'claimedByThis' | 'heldUnsure' | 'heldByAnother' | 'free' | 'unknown';
/** Once a claim has taken its place (in the order claims were first made): what is in front of it. */
export type JoinedState = 'latest' | 'behindAnother' | 'lentToTest' | 'setElsewhere';
/**
 * The trigger's claim as an unpublish finds it (Webhook Set holding it counts as not holding); the
 * last: this process has not seen the organization since it started and the trigger's record says it
 * held the account, so nobody can tell whether it still does.
 */
export type ReleaseState =
	| 'notHolding'
	| 'heldAlone'
	| 'heldWithQueue'
	| 'heldDuringTest'
	| 'unknownHolder';
/** Whether this process has seen the organization since it started (a publish, unpublish, test or delivery). */
export type KnownState = 'known' | 'unknown';
/** What the organization goes back to when a test listen ends. */
export type GiveBackState = 'setElsewhere' | 'held' | 'free' | 'lentToAnotherTest';

export type Action =
	/** Take its place among the claims; what happens next is in JOINED. */
	| 'join'
	/** Fail, naming the published workflow that holds the account. */
	| 'refuse'
	/** Fail, naming the holder of an organization this key cannot be told apart from (Take Over too). */
	| 'refuseUnsure'
	/** Point the account at this workflow's production URL. */
	| 'register'
	/** Keep the claim without registering: another claim, a test listen or Webhook Set's URL is in front. */
	| 'wait'
	/** Point the account at the claim before this one, with that workflow's own token. */
	| 'handBack'
	/** Point the account at On Unpublish's Replacement Webhook URL. */
	| 'pointToGivenUrl'
	/** Point the account at the URL Webhook Set gave before the test. */
	| 'pointToSetUrl'
	/** Record this trigger as the holder, as a restart would, registering nothing (the service delivers here). */
	| 'recordHolder'
	/** Fail: listening or publishing could move the account away from a published workflow this process does not know. */
	| 'refuseUnknown'
	/** Fail unless the record asks for nothing: pointing the account elsewhere could cut off a workflow that took it over. */
	| 'refuseUnlessNothing'
	/** After the test listen, point the account at On Unpublish's URL (as Webhook Set's URL). */
	| 'pointToGivenUrlAfterTest'
	/** Point the account at the test URL with a fresh token until the test ends. */
	| 'lendForTest'
	| 'nothing';

type Row<S extends string, A extends Action = Action> = Readonly<Record<S, A>>;

// prettier-ignore
export const TRANSITIONS: {
	readonly publish: Row<ClaimState>;
	readonly publishAnyway: Row<ClaimState>;
	readonly publishTakingOver: Row<ClaimState>;
	readonly restart: Row<ClaimState>;
	readonly firstDelivery: Row<KnownState>;
	readonly unpublish: Row<ReleaseState>;
	readonly unpublishToUrl: Row<ReleaseState>;
	readonly testListen: Row<KnownState>;
	readonly testListenAnyway: Row<KnownState>;
	readonly testListenEnd: Row<GiveBackState>;
} = {
	publish:           { claimedByThis: 'join', heldUnsure: 'refuseUnsure', heldByAnother: 'refuse', free: 'join', unknown: 'refuseUnknown' },
	publishAnyway:     { claimedByThis: 'join', heldUnsure: 'refuseUnsure', heldByAnother: 'refuse', free: 'join', unknown: 'join' },
	publishTakingOver: { claimedByThis: 'join', heldUnsure: 'refuseUnsure', heldByAnother: 'join',   free: 'join', unknown: 'join' },
	restart:           { claimedByThis: 'join', heldUnsure: 'join',         heldByAnother: 'join',   free: 'join', unknown: 'join' },
	firstDelivery:     { known: 'nothing',     unknown: 'recordHolder' },
	testListen:        { known: 'lendForTest', unknown: 'refuseUnknown' },
	testListenAnyway:  { known: 'lendForTest', unknown: 'lendForTest' },
	unpublish:         { notHolding: 'nothing', heldAlone: 'nothing',         heldWithQueue: 'handBack', heldDuringTest: 'nothing',                  unknownHolder: 'refuseUnlessNothing' },
	unpublishToUrl:    { notHolding: 'nothing', heldAlone: 'pointToGivenUrl', heldWithQueue: 'handBack', heldDuringTest: 'pointToGivenUrlAfterTest', unknownHolder: 'refuseUnlessNothing' },
	testListenEnd:     { setElsewhere: 'pointToSetUrl', held: 'handBack', free: 'nothing', lentToAnotherTest: 'nothing' },
};

/**
 * After 'join' (claims are ordered by when each was first made, so a restart puts them back in
 * order): whether this claim now points the account here. A publish registers over a URL Webhook Set
 * gave; a restart leaves it standing.
 */
// prettier-ignore
export const JOINED: {
	readonly publish: Row<JoinedState, 'register' | 'wait'>;
	readonly restart: Row<JoinedState, 'register' | 'wait'>;
} = {
	publish: { latest: 'register', behindAnother: 'wait', lentToTest: 'wait', setElsewhere: 'register' },
	restart: { latest: 'register', behindAnother: 'wait', lentToTest: 'wait', setElsewhere: 'wait' },
};
