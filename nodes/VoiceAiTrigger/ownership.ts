/**
 * Who holds each Voice AI organization's one webhook lives in nodes/VoiceAi/accountOwnership, below
 * both nodes, so that Webhook Set sees the trigger's claims. docs/trigger-ownership.md has the rules.
 */
export { accountKey, identityOf } from '../VoiceAi/accountOwnership/identity';
export {
	type Claim,
	type KeyIdentity,
	claim,
	giveBack,
	holds,
	isKnown,
	knowsKey,
	lend,
	noteRegistered,
	release,
	type Released,
} from '../VoiceAi/accountOwnership/state';
