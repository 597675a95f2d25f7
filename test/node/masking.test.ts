/**
 * Masking is linear in the text (issue 51, item 4). Large inputs holding a held secret many times are
 * masked in a child process (test/node/maskingChild.ts) and compared with a plain replace of the same
 * text; the child must finish within the deadline, a hundred times what a linear pass needs here.
 * Before the fix each occurrence copied the whole text: minutes for these inputs. The speed itself,
 * as a ratio against a plain replace, is the benchmark's (bench/scenarios/masking.ts).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Secrets } from '../../nodes/VoiceAi/transport/secrets';

const DEADLINE_MS = 60_000;

async function maskInChild(input: string): Promise<{ same: boolean }> {
	const child = join(__dirname, 'maskingChild.ts');
	const { stdout } = await promisify(execFile)(
		process.execPath,
		['--import', 'tsx', child, input],
		{ env: process.env, timeout: DEADLINE_MS, killSignal: 'SIGKILL' },
	);
	return JSON.parse(stdout.trim().split('\n').at(-1)!) as { same: boolean };
}

describe('masking many occurrences finishes, masking each one', () => {
	it(
		'a 2 MiB output value holding a held 16-character secret 116,508 times',
		async () => expect(await maskInChild('longSecretInValue')).toEqual({ same: true }),
		DEADLINE_MS + 10_000,
	);

	it(
		'a 1 MiB error body (message, description, answer) with a 1-character SIP password 524,288 times',
		async () => expect(await maskInChild('shortPasswordInError')).toEqual({ same: true }),
		DEADLINE_MS + 10_000,
	);
});

describe('what is masked stays the same', () => {
	it('overlapping and nested occurrences: the longest form first, each character masked once', () => {
		const secrets = new Secrets();
		secrets.add('abab');
		secrets.add('ba');
		expect(secrets.redact('ababab xbax abab')).toBe('***ab x***x ***');
		expect(secrets.redact('aaaa')).toBe('aaaa');
		expect(secrets.redact('')).toBe('');
	});

	it('a value with no held secret is returned as it was', () => {
		const secrets = new Secrets();
		secrets.add('Sixteen-Chars-16');
		const item = { text: 'nothing held here'.repeat(1000) };
		expect(secrets.redactForOutput(item)).toBe(item);
	});
});
