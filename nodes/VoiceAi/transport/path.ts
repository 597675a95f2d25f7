import type { INode } from 'n8n-workflow';

import { invalidValue } from './errors';
import { decoded, shortened } from './httpText';

/** A value that goes into a request path, with the field it came from (named when it cannot be used). */
export interface PathValue {
	field: { name: string; label: string };
	value: string;
}

export interface ApiPath {
	readonly pieces: readonly string[];
	readonly values: readonly PathValue[];
}

/** A request path with ids in it: apiPath`/chatbot/${{ field: CHATBOT_ID, value: id }}`. Values are encoded. */
export function apiPath(pieces: TemplateStringsArray, ...values: PathValue[]): ApiPath {
	return { pieces: [...pieces], values };
}

/** Why a value cannot be one path segment, or undefined when it can. */
function segmentProblem(value: string): string | undefined {
	if (value === '') return 'it is empty';
	if (value === '.' || value === '..')
		return `${JSON.stringify(value)} would address another resource than the one meant`;
	if (value.includes('/'))
		return `${JSON.stringify(shortened(value, 60))} contains a slash, which would change the request path`;
	return undefined;
}

/**
 * The path a request goes to. Values of an `ApiPath` are checked and encoded; a plain path (built by an
 * operation with encodeURIComponent) is checked segment by segment, so no id can turn into `.`, `..`, an
 * empty segment or extra segments whatever way the path was built. Throws before anything is sent.
 */
export function buildPath(
	node: INode | (() => INode),
	path: string | ApiPath,
	itemIndex?: number,
): string {
	const refused = (field: { label: string; name?: string }, problem: string) =>
		invalidValue(typeof node === 'function' ? node() : node, itemIndex, field, problem);
	if (typeof path !== 'string') {
		let text = path.pieces[0];
		path.values.forEach(({ field, value }, index) => {
			const problem = segmentProblem(String(value));
			if (problem) throw refused(field, problem);
			text += encodeURIComponent(String(value)) + path.pieces[index + 1];
		});
		return text;
	}
	const end = path.search(/[?#]/);
	const segments = (end === -1 ? path : path.slice(0, end)).split('/');
	for (let index = 1; index < segments.length; index++) {
		const problem = segmentProblem(decoded(segments[index]));
		if (problem)
			throw refused(
				{ label: 'request path' },
				`in ${path}, ${problem === 'it is empty' ? 'a segment is empty' : problem}`,
			);
	}
	return path;
}
