/**
 * n8n's HTTP Request node (V3, the one a user adds today) taken from the real n8n install.
 *
 * n8n-nodes-base in the install resolves its own copy of n8n-workflow. In a real n8n that copy is the
 * one n8n-core uses too (one deduplicated package); here n8n-core comes from this repo's node_modules.
 * Two copies of the same version would still work for a successful request, but their classes differ
 * (an error thrown by one fails `instanceof` in the other). So while the node's files load, requests for
 * `n8n-workflow` coming from inside the install are pointed at this repo's copy, after checking that both
 * copies are the same version. Everything else (lodash, form-data, ...) resolves inside the install.
 */
import Module from 'node:module';
import { join, sep } from 'node:path';

import type { IVersionedNodeType } from 'n8n-workflow';

export const HTTP_REQUEST_TYPE = 'n8n-nodes-base.httpRequest';

type Resolve = (request: string, parent: NodeModule | undefined, ...rest: unknown[]) => string;

export function loadHttpRequestNode(n8nDir: string): { node: IVersionedNodeType; version: string } {
	const installModules = join(n8nDir, 'node_modules');
	const ours = require.resolve('n8n-workflow');
	const theirs = require.resolve('n8n-workflow', {
		paths: [join(installModules, 'n8n-nodes-base')],
	});
	const version = (file: string) =>
		(
			require(
				join(
					file.slice(0, file.lastIndexOf(`${sep}n8n-workflow${sep}`)),
					'n8n-workflow',
					'package.json',
				),
			) as { version: string }
		).version;
	if (version(ours) !== version(theirs)) {
		throw new Error(
			`n8n-workflow differs: repo ${version(ours)}, n8n install ${version(theirs)}; pin the same version`,
		);
	}

	const moduleWithResolve = Module as unknown as { _resolveFilename: Resolve };
	const original = moduleWithResolve._resolveFilename;
	moduleWithResolve._resolveFilename = function (request, parent, ...rest) {
		if (request === 'n8n-workflow' && parent?.filename?.startsWith(installModules)) return ours;
		return original.call(this, request, parent, ...rest);
	};
	try {
		const file = join(
			installModules,
			'n8n-nodes-base',
			'dist',
			'nodes',
			'HttpRequest',
			'HttpRequest.node.js',
		);
		const { HttpRequest } = require(file) as { HttpRequest: new () => IVersionedNodeType };
		const base = require(join(installModules, 'n8n-nodes-base', 'package.json')) as {
			version: string;
		};
		return { node: new HttpRequest(), version: base.version };
	} finally {
		moduleWithResolve._resolveFilename = original;
	}
}
