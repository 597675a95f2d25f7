/**
 * Child of masking.test.ts: masks one large input (argv[2] names it) and prints one JSON line saying
 * whether the result equals a plain replace of the same text. A child process, so that a masking that
 * is not linear (minutes for these inputs before issue 51) can be ended by the test's deadline.
 */
import { Secrets } from '../../nodes/VoiceAi/transport/secrets';

const LONG_SECRET = 'Sixteen-Chars-16';
const FIELD_PASSWORD = 'p';

function held(): Secrets {
	const secrets = new Secrets();
	secrets.add(LONG_SECRET);
	secrets.collect({ directions: [{ options: { sip_password: FIELD_PASSWORD } }] });
	return secrets;
}

const inputs: Record<string, () => { shown: unknown; expected: unknown }> = {
	// An output value: only secrets of 16 characters or more are hidden inside it.
	longSecretInValue() {
		const value = `${LONG_SECRET}, `.repeat(116_508);
		const shown = held().redactForOutput({ body: value });
		return { shown, expected: { body: value.replaceAll(LONG_SECRET, '***') } };
	},
	// Free text (an error body): the 1-character SIP password is hidden wherever it stands.
	shortPasswordInError() {
		const text = `{"detail":"${'p.'.repeat(512 * 1024)}"}`;
		const error = Object.assign(new Error(text), { description: text, errorResponse: { text } });
		held().redactError(error);
		const clean = text.replaceAll(FIELD_PASSWORD, '***');
		return {
			shown: [error.message, error.description, error.errorResponse],
			expected: [clean, clean, { text: clean }],
		};
	},
};

const { shown, expected } = inputs[process.argv[2]]();
console.log(JSON.stringify({ same: JSON.stringify(shown) === JSON.stringify(expected) }));
