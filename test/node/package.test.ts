/**
 * Loads the built package from dist/ with n8n-core's own PackageDirectoryLoader (what n8n runs for an
 * installed community package: package.json's "n8n" section, class per file, description validation,
 * icon paths), then checks each node and credential is found and well formed.
 * dist/ comes from `npm run build` (`npm test` builds first); when it is missing, it is built here.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type {
	ICredentialType,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { allOperations, optionDescription, resources } from '../../nodes/VoiceAi/actions/registry';
import { testCredential } from '../../harness/engine';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	name: string;
	n8n: { credentials: string[]; nodes: string[] };
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	keywords: string[];
	files: string[];
	main: string;
};

let loader: PackageDirectoryLoader;

beforeAll(async () => {
	const listed = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	if (!listed.every((file) => existsSync(join(root, file)))) {
		execSync('npm run build', { cwd: root, stdio: 'ignore' });
	}
	loader = new PackageDirectoryLoader(root);
	await loader.loadAll();
}, 120_000);

function iconFiles(icon: unknown): string[] {
	if (!icon) return [];
	if (typeof icon === 'string') return [icon];
	const { light, dark } = icon as { light: string; dark: string };
	return [light, dark];
}

function parameterNames(properties: INodeProperties[]): Set<string> {
	return new Set(properties.map((property) => property.name));
}

describe('the package as n8n loads it', () => {
	it('is an installable community package', () => {
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.files).toEqual(['dist', 'index.js']);
		expect(pkg.main).toBe('index.js');
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(loader.packageName).toBe('n8n-nodes-voiceai');
	});

	it('finds every node and credential listed in package.json', () => {
		const nodeNames = pkg.n8n.nodes.map((file) =>
			file
				.split('/')
				.pop()!
				.replace(/\.node\.js$/, ''),
		);
		expect(Object.keys(loader.nodeTypes).sort()).toEqual(
			nodeNames.map((name) => name[0].toLowerCase() + name.slice(1)).sort(),
		);
		expect(Object.keys(loader.credentialTypes).sort()).toEqual([
			'voiceAiApi',
			'voiceAiSipLoginApi',
			'voiceAiWithSipLoginApi',
		]);
		expect(loader.types.nodes.map((description) => description.name).sort()).toEqual(
			Object.keys(loader.nodeTypes).sort(),
		);
	});

	it('every icon named by a node or credential exists in dist', () => {
		const owners = [...loader.types.nodes, ...loader.types.credentials] as Array<
			INodeTypeDescription | ICredentialType
		>;
		for (const owner of owners) {
			const icons = iconFiles(owner.iconUrl);
			expect(icons.length).toBeGreaterThan(0);
			for (const icon of icons) {
				const file = join(root, icon.replace(`icons/${pkg.name}/`, ''));
				expect(existsSync(file)).toBe(true);
				expect(readFileSync(file, 'utf8')).toMatch(/^<svg[\s>]/);
			}
		}
	});

	it('the Voice AI node is well formed', () => {
		const node = loader.nodeTypes.voiceAi.type as INodeType;
		const { description } = node;
		expect(description).toMatchObject({
			name: 'voiceAi',
			displayName: 'Voice AI',
			version: 1,
			usableAsTool: true,
		});
		expect(typeof node.execute).toBe('function');
		expect(description.credentials).toEqual([
			{
				name: 'voiceAiApi',
				required: true,
				displayOptions: { show: { authentication: ['apiKey'] } },
			},
			{
				name: 'voiceAiWithSipLoginApi',
				required: true,
				displayOptions: { show: { authentication: ['apiKeyAndSipLogin'] } },
			},
		]);
		expect(description.properties[0]).toMatchObject({
			name: 'authentication',
			type: 'options',
			default: 'apiKey',
			options: [{ value: 'apiKey' }, { value: 'apiKeyAndSipLogin' }],
		});
		expect(description.sensitiveOutputFields).toContain('directions[*].options.sip_password');
		expect(description.codex?.categories).toEqual(['Communication']);

		const names = parameterNames(description.properties);
		const resource = description.properties.find((property) => property.name === 'resource')!;
		const offered = resource.options!.map((option) => (option as { value: string }).value);
		expect(offered).toEqual(resources.map(({ value }) => value));

		const operations: Record<string, string[]> = {};
		for (const property of description.properties) {
			for (const key of Object.keys(property.displayOptions?.show ?? {}))
				expect(names.has(key)).toBe(true);
			if (property.name === 'operation') {
				const shownFor = property.displayOptions!.show!.resource as string[];
				const values = property.options!.map(
					(option) => option as { value: string; action?: string; description?: string },
				);
				expect(new Set(values.map((option) => option.value)).size).toBe(values.length);
				expect(values.every((option) => option.action && option.description)).toBe(true);
				operations[shownFor[0]] = values.map((option) => option.value).sort();
			}
			if (property.type === 'options' && property.name !== 'operation') {
				const values = property.options!.map((option) => (option as { value: unknown }).value);
				expect(values).toContain(property.default);
			}
		}
		expect(operations).toEqual(
			Object.fromEntries(
				resources.map(({ value, operations: byValue }) => [value, Object.keys(byValue).sort()]),
			),
		);
	});

	it('operations that change data say so, as the registry says', () => {
		const { description } = loader.nodeTypes.voiceAi.type as INodeType;
		const shown = description.properties
			.filter((property) => property.name === 'operation')
			.flatMap((property) =>
				(property.options as Array<{ value: string; description: string }>).map((option) => [
					`${(property.displayOptions!.show!.resource as string[])[0]}.${option.value}`,
					option.description,
				]),
			);
		const registered = allOperations();
		expect(shown).toEqual(
			registered.map(({ resource, value, operation }) => [
				`${resource.value}.${value}`,
				optionDescription(operation),
			]),
		);
		expect(
			registered
				.filter(({ operation }) => operation.changesData !== false)
				.map(({ resource, value }) => `${resource.value}.${value}`),
		).toEqual(
			shown.filter(([, text]) => /\(changes data(: [^)]+)?\)$/.test(text)).map(([name]) => name),
		);
	});

	it('both nodes carry their codex (category, search aliases, documentation) from the .node.json beside them', () => {
		for (const name of ['voiceAi', 'voiceAiTrigger']) {
			const { codex } = (loader.nodeTypes[name].type as INodeType).description;
			expect(codex).toEqual({
				categories: ['Communication'],
				alias: expect.arrayContaining(['sip', 'phone', 'telephony', 'chatbot', 'agent']),
				resources: {
					primaryDocumentation: [
						{
							url: expect.stringMatching(
								/^https:\/\/github\.com\/n8n-nodes-voiceai\/n8n-nodes-voiceai/,
							),
						},
					],
					credentialDocumentation: [
						{
							url: expect.stringMatching(
								/^https:\/\/github\.com\/n8n-nodes-voiceai\/n8n-nodes-voiceai/,
							),
						},
					],
				},
			});
			const file = JSON.parse(
				readFileSync(
					resolve(root, loader.nodeTypes[name].sourcePath.replace(/\.js$/, '.json')),
					'utf8',
				),
			) as Record<string, string>;
			expect(file).toMatchObject({
				node: `${pkg.name}.${name}`,
				nodeVersion: '1.0',
				codexVersion: '1.0',
			});
		}
	});

	it("the action node's documentation links survive n8n's tracking query", () => {
		// n8n opens a codex link as `${url}?utm_…`, which would cut off an anchor; documentationUrl is used as written.
		const { codex, documentationUrl } = (loader.nodeTypes.voiceAi.type as INodeType).description;
		for (const { url } of [
			...(codex?.resources?.primaryDocumentation ?? []),
			...(codex?.resources?.credentialDocumentation ?? []),
		]) {
			expect(url).not.toContain('#');
		}
		const anchor = String(documentationUrl).split('#')[1];
		const headings = readFileSync(resolve(root, 'README.md'), 'utf8')
			.split('\n')
			.filter((line) => line.startsWith('#'))
			.map((line) =>
				line
					.replace(/^#+\s*/, '')
					.toLowerCase()
					.replace(/[^a-z0-9 -]/g, '')
					.replace(/ /g, '-'),
			);
		expect(headings).toContain(anchor);
		expect(codex?.alias?.slice(0, 5)).toEqual(['sip', 'phone', 'call', 'agent', 'chatbot']);
	});

	it('the trigger offers its agent list search to the editor', () => {
		const { methods, description } = loader.nodeTypes.voiceAiTrigger.type as INodeType;
		expect(typeof methods?.listSearch?.searchAgents).toBe('function');
		const options = description.properties.find((property) => property.name === 'options')!;
		const agent = (options.options as INodeProperties[]).find(
			(option) => option.name === 'agentIds',
		)!;
		expect(agent.type).toBe('resourceLocator');
		expect(agent.modes?.map((mode) => [mode.name, mode.typeOptions?.searchListMethod])).toEqual([
			['list', 'searchAgents'],
			['id', undefined],
		]);
	});

	it('the credential test explains a base URL that is not http(s) instead of showing an error code', async () => {
		for (const baseUrl of ['ftp://api.example.com', 'api.example.com', 'https://']) {
			expect(await testCredential('voiceAiApi', { baseUrl, apiKey: 'ct_package_check' })).toEqual({
				status: 'Error',
				message: expect.stringMatching(
					/^The Base URL is not an http:\/\/ or https:\/\/ address of the Voice AI API/,
				),
			});
		}
	});

	it('the credential is well formed', async () => {
		const credential = loader.credentialTypes.voiceAiApi.type;
		expect(credential.displayName).toBe('Voice AI API');
		const fields = Object.fromEntries(
			credential.properties.map((property) => [property.name, property]),
		);
		expect(Object.keys(fields).sort()).toEqual(['apiKey', 'authHeader', 'baseUrl']);
		expect(fields.apiKey.typeOptions?.password).toBe(true);
		expect(fields.baseUrl.required).toBe(true);
		expect(fields.authHeader.default).toBe('bearer');
		// The built credential puts the key in exactly one header, and never a value not shaped like a key.
		const authenticate = credential.authenticate as unknown as (
			data: object,
			options: object,
		) => Promise<{ headers: Record<string, string> } & Record<string, unknown>>;
		expect(typeof authenticate).toBe('function');
		const baseUrl = 'https://api.example.com/v1';
		const sent = async (data: object) =>
			(
				await authenticate(
					{ baseUrl, ...data },
					{ url: `${baseUrl}/x`, headers: { Accept: 'application/json' } },
				)
			).headers;
		const cases: Array<[string, string, Record<string, string>]> = [
			[' ct_abc ', 'bearer', { Authorization: 'Bearer ct_abc' }],
			['ct_abc', 'xApiKey', { 'X-API-Key': 'ct_abc' }],
			['sk_live', 'bearer', { Authorization: '' }],
			['not a key', 'xApiKey', { 'X-API-Key': '' }],
		];
		for (const [apiKey, authHeader, header] of cases)
			await expect(sent({ apiKey, authHeader })).resolves.toEqual({
				Accept: 'application/json',
				...header,
			});
		// Only to the base URL, and never following a redirect, whichever request helper sends it.
		await expect(
			authenticate({ baseUrl, apiKey: 'ct_abc' }, { url: 'https://other.example/v1/x' }),
		).rejects.toThrow(
			'The Voice AI API credential sends its key only to its base URL, https://api.example.com/v1: this request goes to https://other.example',
		);
		await expect(
			authenticate({ baseUrl, apiKey: 'ct_abc' }, { uri: `${baseUrl}/x`, followRedirect: true }),
		).resolves.toMatchObject({
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
			maxRedirects: 0,
		});
		// The test request's base is a stand-in: `authenticate` replaces it with the parsed Base URL.
		const request = credential.test!.request;
		expect(request).toMatchObject({
			url: '/contacts/list-names',
			method: 'GET',
			disableFollowRedirect: true,
		});
		expect(new URL(String(request.baseURL)).hostname.endsWith('.invalid')).toBe(true);
		expect(loader.known.credentials.voiceAiApi.supportedNodes).toEqual(
			expect.arrayContaining(['voiceAi']),
		);
	});

	it('the Voice AI with SIP Trunk Login credential extends Voice AI API, keeps its password secret and is offered to the Voice AI node', async () => {
		const credential = loader.credentialTypes.voiceAiWithSipLoginApi.type;
		expect(credential.displayName).toBe('Voice AI with SIP Trunk Login API');
		expect(credential.extends).toEqual(['voiceAiApi']);
		const fields = Object.fromEntries(
			credential.properties.map((property) => [property.name, property]),
		);
		expect(Object.keys(fields).sort()).toEqual(['sipPassword', 'sipUsername']);
		expect(fields.sipPassword.typeOptions?.password).toBe(true);
		expect(loader.known.credentials.voiceAiWithSipLoginApi).toMatchObject({
			extends: ['voiceAiApi'],
			supportedNodes: expect.arrayContaining(['voiceAi']),
		});
		// Its key travels as Voice AI API's does; the login never becomes a header.
		const authenticate = credential.authenticate as (
			data: object,
			options: object,
		) => Promise<{ headers: Record<string, string> }>;
		await expect(
			authenticate(
				{
					baseUrl: 'https://api.example.com',
					apiKey: 'ct_abc',
					authHeader: 'xApiKey',
					sipUsername: 'u',
					sipPassword: 'p',
				},
				{ baseURL: 'https://api.example.com', url: '/x', headers: {} },
			),
		).resolves.toMatchObject({ headers: { 'X-API-Key': 'ct_abc' } });
	});

	it('the Voice AI with SIP Trunk Login test says which login field is empty and sends nothing', async () => {
		const key = { baseUrl: 'http://127.0.0.1:9/', apiKey: 'ct_package_check' };
		await expect(
			testCredential('voiceAiWithSipLoginApi', { ...key, sipUsername: ' ', sipPassword: 'pw' }),
		).resolves.toEqual({
			status: 'Error',
			message: expect.stringMatching(/^Fill in the SIP Username/),
		});
		await expect(
			testCredential('voiceAiWithSipLoginApi', { ...key, sipUsername: 'trunk', sipPassword: '' }),
		).resolves.toEqual({
			status: 'Error',
			message: expect.stringMatching(/^Fill in the SIP Password/),
		});
	});

	it('the replaced SIP Trunk Login credential still loads, no node offers it, and its test says what replaces it', async () => {
		const credential = loader.credentialTypes.voiceAiSipLoginApi.type;
		expect(credential.displayName).toBe('Voice AI SIP Trunk Login API');
		expect(loader.known.credentials.voiceAiSipLoginApi.supportedNodes ?? []).toEqual([]);
		const fields = Object.fromEntries(
			credential.properties.map((property) => [property.name, property]),
		);
		expect(fields.sipPassword.typeOptions?.password).toBe(true);
		await expect(
			testCredential('voiceAiSipLoginApi', { sipUsername: 'trunk', sipPassword: 'pw' }),
		).resolves.toEqual({
			status: 'Error',
			message: expect.stringMatching(/Create a "Voice AI with SIP Trunk Login API" credential/),
		});
	});
});
