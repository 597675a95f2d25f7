/**
 * package.json's `repository` is where the GitHub repository is named (RELEASING.md, "The place a fork
 * changes"). The shipped files that link into it (the nodes' and credentials'
 * documentationUrl, the codex files, the trigger's notice) cannot read package.json (node code reads no
 * files), so this test holds every GitHub address in them, and package.json's own links, against it: a
 * fork that changes `repository.url` is shown each place still naming the old one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const SHIPPED_FOLDERS = ['nodes', 'credentials'];
const GITHUB_URL = /https:\/\/github\.com\/[^\s'"`<>)]*/g;

interface PackageJson {
	repository: { type: string; url: string };
	homepage: string;
	bugs: { url: string };
}

const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;

/** `git+https://github.com/OWNER/NAME.git` → `https://github.com/OWNER/NAME`. */
const repository = packageJson.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

function filesUnder(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

/** Every GitHub address in the shipped sources (.ts and codex .json), with the file it stands in. */
function shippedGithubUrls(): Array<{ file: string; url: string }> {
	return SHIPPED_FOLDERS.flatMap((folder) => filesUnder(join(root, folder)))
		.filter((path) => path.endsWith('.ts') || path.endsWith('.json'))
		.flatMap((path) =>
			[...readFileSync(path, 'utf8').matchAll(GITHUB_URL)].map(([url]) => ({
				file: relative(root, path),
				url,
			})),
		);
}

const inRepository = (url: string) =>
	url === repository || url.startsWith(`${repository}/`) || url.startsWith(`${repository}#`);

test('repository.url names a GitHub repository, and homepage and bugs point into it', () => {
	expect(packageJson.repository.type).toBe('git');
	expect(repository).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
	expect(packageJson.homepage).toBe(`${repository}#readme`);
	expect(packageJson.bugs.url).toBe(`${repository}/issues`);
});

test("every GitHub address in the shipped nodes and credentials points into package.json's repository", () => {
	const found = shippedGithubUrls();
	expect(found.filter(({ url }) => !inRepository(url))).toEqual([]);
	// The places RELEASING.md names: both nodes (description or codex), both credentials, both codex files.
	expect([...new Set(found.map(({ file }) => file))].sort()).toEqual(
		expect.arrayContaining([
			'credentials/VoiceAiApi.credentials.ts',
			'credentials/VoiceAiSipLoginApi.credentials.ts',
			'nodes/VoiceAi/VoiceAi.node.json',
			'nodes/VoiceAi/VoiceAi.node.ts',
			'nodes/VoiceAiTrigger/VoiceAiTrigger.node.json',
		]),
	);
});

test("a link to a file of the repository's main branch names a file that exists", () => {
	const files = shippedGithubUrls()
		.map(({ url }) => url.split('#')[0])
		.filter((url) => url.startsWith(`${repository}/blob/main/`))
		.map((url) => url.slice(`${repository}/blob/main/`.length));
	expect(files.length).toBeGreaterThan(0);
	for (const file of new Set(files)) expect(statSync(join(root, file)).isFile()).toBe(true);
});

test("a link to a section of the repository's page names a heading of the README", () => {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	const anchors = new Set(
		readme
			.split('\n')
			.filter((line) => line.startsWith('## '))
			.map((line) =>
				line
					.slice(3)
					.trim()
					.toLowerCase()
					.replace(/[^a-z0-9 -]/g, '')
					.replace(/ /g, '-'),
			),
	);
	const sections = shippedGithubUrls()
		.filter(({ url }) => url.startsWith(`${repository}#`))
		.map(({ url }) => url.slice(`${repository}#`.length))
		.filter((section) => section !== 'readme');
	expect(sections.length).toBeGreaterThan(0);
	expect(sections.filter((section) => !anchors.has(section))).toEqual([]);
});
