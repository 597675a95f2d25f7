/**
 * Rules of the newest `recommended` of @n8n/eslint-plugin-community-nodes that the plugin the registry
 * serves here (0.32.0) does not have yet, checked on the packed tarball's node descriptions as n8n
 * builds them (RELEASING.md lists every rule and where it is met):
 * - single-credential-per-node: no two entries of a node's `credentials` can be active under the same
 *   parameters, i.e. each pair is told apart by a single-value property shown with disjoint values;
 * - valid-node-categories: codex categories from the community list;
 * - hint-max-length: every `hint` at most 120 characters;
 * - options in alphabetical order, every list (n8n's reviewers ask for it; the base plugin's
 *   node-param-options-type-unsorted-items reads only literal lists in `*.node.ts`);
 * - non-required-fields-in-collection (a warning): the action node's optional top-level fields are
 *   the ones RELEASING.md names (moving them into a collection would drop them from saved workflows).
 * Needs dist/ (`npm run build`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type {
	INodeCredentialDescription,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { linkRepoModules, packAndUnpack } from './packed';

/** n8n's community node categories (the rule's list, from n8n's codex documentation). */
const COMMUNITY_CATEGORIES = [
	'Data & Storage',
	'Finance & Accounting',
	'Marketing & Content',
	'Productivity',
	'Miscellaneous',
	'Sales',
	'Development',
	'Analytics',
	'Communication',
	'Utility',
];
const MAX_HINT_LENGTH = 120;
/** Exempt from non-required-fields-in-collection: containers, fields without input, the selectors. */
const CONTAINER_OR_NO_INPUT = ['collection', 'fixedCollection', 'notice', 'callout', 'hidden'];
const SELECTORS = ['resource', 'operation', 'authentication'];

let work: string;
let dir: string;
let pkg: { n8n: { nodes: string[] } };

beforeAll(async () => {
	work = mkdtempSync(join(tmpdir(), 'voiceai-community-rules-'));
	dir = await packAndUnpack(work);
	linkRepoModules(dir);
	pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

function descriptionOf(file: string): INodeTypeDescription {
	const className = file.split('/').pop()!.split('.')[0];
	const NodeClass = (require(join(dir, file)) as Record<string, new () => INodeType>)[className];
	return new NodeClass().description;
}

/** Values a credential entry's `show` condition allows, by parameter name. */
function shownFor(entry: INodeCredentialDescription): Map<string, unknown[]> {
	const shown = new Map<string, unknown[]>();
	for (const [name, values] of Object.entries(entry.displayOptions?.show ?? {}))
		if (Array.isArray(values)) shown.set(name, values);
	return shown;
}

/** Two entries exclude each other when one single-value parameter is shown for disjoint values. */
function mutuallyExclusive(
	left: INodeCredentialDescription,
	right: INodeCredentialDescription,
	description: INodeTypeDescription,
): boolean {
	const rightShown = shownFor(right);
	for (const [name, leftValues] of shownFor(left)) {
		const property = description.properties.find((candidate) => candidate.name === name);
		if (!property || property.type === 'multiOptions') continue;
		const rightValues = rightShown.get(name);
		if (rightValues && leftValues.every((value) => !rightValues.includes(value))) return true;
	}
	return false;
}

function credentialPairsActiveTogether(description: INodeTypeDescription): string[] {
	const entries = description.credentials ?? [];
	const together: string[] = [];
	entries.forEach((left, index) => {
		for (const right of entries.slice(index + 1)) {
			if (!mutuallyExclusive(left, right, description))
				together.push(`${description.name}: ${left.name} + ${right.name}`);
		}
	});
	return together;
}

function longHints(value: unknown, found: string[] = []): string[] {
	if (Array.isArray(value)) for (const element of value) longHints(element, found);
	else if (value && typeof value === 'object') {
		for (const [key, inner] of Object.entries(value)) {
			if (key === 'hint' && typeof inner === 'string' && inner.length > MAX_HINT_LENGTH)
				found.push(`${inner.length}: ${inner.slice(0, 60)}…`);
			longHints(inner, found);
		}
	}
	return found;
}

/** The option lists (of options and multiOptions fields, at any depth) whose names are out of order. */
function unsortedOptionLists(value: unknown, found: string[] = []): string[] {
	if (!value || typeof value !== 'object') return found;
	const field = value as INodeProperties;
	if (['options', 'multiOptions'].includes(field.type) && Array.isArray(field.options)) {
		const names = (field.options as Array<{ name: string }>).map((option) => option.name);
		const sorted = [...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
		if (names.join('\n') !== sorted.join('\n')) found.push(`${field.name}: ${names.join(' | ')}`);
	}
	for (const inner of Object.values(value)) unsortedOptionLists(inner, found);
	return found;
}

function optionalTopLevelFields(properties: INodeProperties[]): string[] {
	const names = properties
		.filter((property) => !SELECTORS.includes(property.name))
		.filter((property) => !CONTAINER_OR_NO_INPUT.includes(property.type))
		.filter((property) => property.required !== true)
		.map((property) => property.name);
	return [...new Set(names)];
}

test('single-credential-per-node: no node of the package can use two credentials at once', () => {
	const descriptions = pkg.n8n.nodes.map(descriptionOf);
	expect(descriptions.length).toBeGreaterThan(1);
	expect(descriptions.flatMap(credentialPairsActiveTogether)).toEqual([]);
});

test('valid-node-categories: every codex names community categories only', () => {
	for (const file of pkg.n8n.nodes) {
		const codex = JSON.parse(readFileSync(join(dir, file.replace(/\.js$/, '.json')), 'utf8')) as {
			categories?: unknown;
		};
		expect(Array.isArray(codex.categories) && codex.categories.length > 0).toBe(true);
		for (const category of codex.categories as unknown[])
			expect(COMMUNITY_CATEGORIES).toContain(category);
	}
});

test(`hint-max-length: no hint is longer than ${MAX_HINT_LENGTH} characters`, () => {
	expect(pkg.n8n.nodes.flatMap((file) => longHints(descriptionOf(file)))).toEqual([]);
});

test('options-sorted: every option list of both nodes is in alphabetical order', () => {
	expect(
		pkg.n8n.nodes.flatMap((file) => unsortedOptionLists(descriptionOf(file).properties)),
	).toEqual([]);
});

test('non-required-fields-in-collection: the action node has no optional top-level field but those RELEASING.md names', () => {
	const action = pkg.n8n.nodes.find((file) => file.includes('/VoiceAi/'))!;
	expect(optionalTopLevelFields(descriptionOf(action).properties)).toEqual([
		'returnAll',
		'limit',
		'historySize',
		'showSipPasswords',
		'trunkName',
		'sipLogin',
		'unlistedDirections',
		'notFoundAsDetached',
		'whenTriggerHolds',
	]);
});
