/**
 * n8n 3.0 removes the in-memory binary data mode (3.0 itself is not published to npm, so its behaviour
 * is set on the lines we can install: the harness starts every n8n with
 * N8N_DEFAULT_BINARY_DATA_MODE=filesystem). Here, on each line: a file made by n8n's own Convert to File
 * node is kept on disk, and Chatbot → Update uploads it byte for byte.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { START, chain, voiceAiNode } from '../../harness/manualWorkflow';
import { n8nVersion } from '../../harness/n8n';
import { PNG } from '../../harness/sandboxFixture';
import { stackForFile } from '../../harness/stack';

const stack = stackForFile();

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Every file under `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return [];
	}
	return names.flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

describe(`n8n ${n8nVersion()} with binary data on the filesystem, as n8n 3.0 requires`, () => {
	test('n8n runs in filesystem mode', async () => {
		const settings = await stack.api.request<{ binaryDataMode?: string }>('GET', '/rest/settings');
		expect(settings.binaryDataMode).toBe('filesystem');
	});

	test('a logo made by Convert to File is stored on disk and uploaded by Chatbot → Update unchanged', async () => {
		const workflow = chain('chatbot logo from a file on disk', [
			{
				name: 'Logo',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [0, 0],
				parameters: {
					mode: 'raw',
					jsonOutput: JSON.stringify({ logo: PNG.toString('base64') }),
				},
			},
			{
				name: 'To File',
				type: 'n8n-nodes-base.convertToFile',
				typeVersion: 1.1,
				position: [0, 0],
				parameters: {
					operation: 'toBinary',
					sourceProperty: 'logo',
					binaryPropertyName: 'logo',
					options: { fileName: 'logo.png', mimeType: 'image/png' },
				},
			},
			voiceAiNode('Restyle', {
				resource: 'chatbot',
				operation: 'update',
				chatbotId: 'cb_acme_support',
				updateFields: { chatbotImageProperty: 'logo' },
			}),
		]);
		const saved = await stack.api.importWorkflow(workflow, { voiceAiApi: stack.credential });
		const execution = await stack.api.runWorkflow(saved, START);
		expect({ status: execution.status, error: execution.error }).toEqual({
			status: 'success',
			error: undefined,
		});

		// n8n 1.x keeps files in <user folder>/.n8n/binaryData, 2.x in .n8n/storage (3.0 renames the first).
		const onDisk = ['binaryData', 'storage']
			.flatMap((dir) => filesUnder(join(stack.n8n.userFolder, '.n8n', dir)))
			.filter((file) => !file.endsWith('.metadata'));
		expect(onDisk.map((file) => sha256(readFileSync(file)))).toContain(sha256(PNG));

		const state = await stack.admin.state<{
			uploads: Array<{ chatbotId: string; field: string; size: number; sha256: string }>;
		}>(stack.org.id);
		expect(state.uploads).toEqual([
			expect.objectContaining({
				chatbotId: 'cb_acme_support',
				field: 'chatbot_image',
				size: PNG.length,
				sha256: sha256(PNG),
			}),
		]);
	});
});
