/**
 * Hostile input for every operation of the Voice AI node, from the catalogue (harness/catalogue.ts):
 * each invalid value is refused with a NodeOperationError naming the field and the item, and nothing
 * reaches the sandbox. How a case's value goes in: `InvalidInput` in the catalogue.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';

import type { InputItem } from '../../harness/engine';
import { SandboxFixture } from '../../harness/sandboxFixture';
import type { InvalidInput } from '../../harness/catalogue';
import { catalogue, entryName, optionsInvalid, validParameters } from '../../harness/catalogue';
import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node';

const fx = new SandboxFixture();
beforeAll(async () => await fx.start());
afterAll(async () => await fx.stop());
beforeEach(async () => await fx.reset());

type Json = InvalidInput['bad'];
interface Case extends InvalidInput {
	op: string;
	base: INodeParameters;
}

function get(params: INodeParameters, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], params);
}

function set(params: INodeParameters, path: string, value: unknown): INodeParameters {
	const copy = structuredClone(params) as Record<string, unknown>;
	const keys = path.split('.');
	let node = copy;
	for (const key of keys.slice(0, -1)) {
		node[key] = { ...((node[key] as Record<string, unknown>) ?? {}) };
		node = node[key] as Record<string, unknown>;
	}
	node[keys[keys.length - 1]] = value;
	return copy as INodeParameters;
}

const cases: Case[] = catalogue.flatMap((entry) =>
	[...entry.invalid, ...optionsInvalid].map((invalid) => ({
		...invalid,
		op: entryName(entry),
		base: validParameters(entry),
	})),
);

function build(testCase: Case): { parameters: INodeParameters; items: InputItem[]; at: number } {
	const base = { ...testCase.base, ...testCase.with };
	if (testCase.literal) {
		return {
			parameters: set(base, testCase.path, testCase.bad),
			items: testCase.items ?? [{ json: {} }],
			at: testCase.at ?? 0,
		};
	}
	const at = testCase.at ?? 2;
	const good = testCase.good !== undefined ? testCase.good : (get(base, testCase.path) as Json);
	const items: InputItem[] = Array.from({ length: at + 1 }, (_, index) => ({
		...testCase.items?.[index],
		json: { v: index === at ? testCase.bad : good },
	}));
	return { parameters: set(base, testCase.path, '={{ $json.v }}'), items, at };
}

const properties = new VoiceAi().description.properties;

/**
 * The label the editor shows for the parameter at `path` (a fixedCollection field is named with its
 * group, "Inbound Port"), read from the node's description so that the message is held to the label a
 * user sees, not to a copy of it.
 */
function editorLabel(base: INodeParameters, path: string): string {
	const [name, ...rest] = path.split('.');
	const top = properties.find(
		(p) =>
			p.name === name &&
			['resource', 'operation'].every(
				(key) =>
					!p.displayOptions?.show?.[key] ||
					(p.displayOptions.show[key] as unknown[]).includes(base[key]),
			),
	);
	if (!top) throw new Error(`no parameter ${name} for ${String(base.resource)}`);
	if (rest.length === 0) return top.displayName;
	if (top.type === 'fixedCollection') {
		const group = (
			top.options as Array<{ name: string; displayName: string; values: INodeProperties[] }>
		).find((g) => g.name === rest[0])!;
		return `${group.displayName} ${group.values.find((v) => v.name === rest[1])!.displayName}`;
	}
	return (top.options as INodeProperties[]).find((option) => option.name === rest[0])!.displayName;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A value as the test's name shows it: a long one (an id of 70,000 characters) by its start and length. */
function shown(value: unknown): string {
	const text = JSON.stringify(value);
	return text.length > 80 ? `${text.slice(0, 40)}… (${text.length} characters)` : text;
}

/** What the items' binary data is, so that cases differing only in it have their own names. */
function binaryShown(items: InputItem[] | undefined): string {
	const files = (items ?? []).flatMap((item) =>
		Object.values(item.binary ?? {}).map(
			(file) => `${JSON.stringify(file.mimeType)}, ${file.data.length} base64 characters`,
		),
	);
	return files.length ? ` with binary ${files.join('; ')}` : '';
}

const named = cases.map((testCase, index) => ({
	...testCase,
	name: `#${index + 1} ${testCase.op} ${testCase.path} = ${shown(testCase.bad)}${binaryShown(testCase.items)}`,
}));

describe(`${cases.length} invalid inputs across every operation`, () => {
	it('covers every operation with at least 100 cases', () => {
		expect(cases.length).toBeGreaterThanOrEqual(100);
		expect(new Set(cases.map((testCase) => testCase.op))).toEqual(
			new Set(catalogue.map(entryName)),
		);
	});

	it.each(named)('$name', async (testCase) => {
		const { parameters, items, at } = build(testCase);
		const result = await fx.run(parameters, { items });
		expect(result.error?.name).toBe('NodeOperationError');
		const label = editorLabel(testCase.base, testCase.path);
		expect(result.error?.message).toMatch(
			new RegExp(`^Invalid '${escape(label)}' in item ${at}: `),
		);
		expect(result.error?.context?.itemIndex).toBe(at);
		if (testCase.notShown)
			expect(
				JSON.stringify({ m: result.error?.message, d: result.error?.description }),
			).not.toContain(testCase.notShown);
		expect(await fx.requests()).toEqual([]);
	});
});

describe('with Continue On Fail, invalid items become error items and are never sent', () => {
	it('valid items around an invalid one are sent once each, in order', async () => {
		const result = await fx.run(
			{ resource: 'sip', operation: 'get', phoneNumber: '={{ $json.v }}' },
			{
				continueOnFail: true,
				items: [
					{ json: { v: '+14155550101' } },
					{ json: { v: 14155550102 } },
					{ json: { v: { a: 1 } } },
					{ json: { v: '+14155550103' } },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [item.pairedItem, item.json.phone_number ?? item.json.error]),
		).toEqual([
			[{ item: 0 }, '+14155550101'],
			[
				{ item: 1 },
				expect.stringMatching(/^Invalid 'Phone Number' in item 1: expected text, got a number/),
			],
			[
				{ item: 2 },
				expect.stringMatching(/^Invalid 'Phone Number' in item 2: expected text, got an object/),
			],
			[{ item: 3 }, '+14155550103'],
		]);
		expect((await fx.requests()).map((request) => request.path)).toEqual([
			'/sip/%2B14155550101',
			'/sip/%2B14155550103',
		]);
	});
});
