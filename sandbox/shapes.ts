import type { NextFunction, Request, Response } from 'express';

import type { Store } from './store';
import type { Org } from './types';

/**
 * How the sandbox shapes the answers whose shape the spec does not show (agent list and creation, SIP
 * update and detach, error bodies). Answers the spec shows (chatbot update, trust products, contact list
 * names, webhook registration) keep their shown shape in every set.
 *
 * - `documented`: the sandbox's own JSON shapes (sandbox/README.md).
 * - `wrapped`: lists inside `{"data":[…]}`, a created record inside `{"data":{…}}`, SIP writes answered
 *   with a text/plain sentence, error bodies as text/plain.
 * - `minimal`: lists under a named key (`{"agents":[…]}`), creation answered with a message and the id
 *   only, SIP update answered 204 with no body, SIP detach 200 with an empty body, error bodies as text/plain.
 *
 * None of these is the service's behaviour: they are shapes the service could plausibly use, so the
 * node is tested against more than one guess.
 */
export const ANSWER_SHAPES = ['documented', 'wrapped', 'minimal'] as const;
export type AnswerShapes = (typeof ANSWER_SHAPES)[number];

export function isAnswerShapes(value: unknown): value is AnswerShapes {
	return (ANSWER_SHAPES as readonly unknown[]).includes(value);
}

/** The shapes in force for this request: the organization's own setting, else the sandbox's. */
export function shapesOf(res: Response): AnswerShapes {
	return ((res.locals.org as Org | undefined)?.shapes ??
		res.locals.shapes ??
		'documented') as AnswerShapes;
}

/** Marks a public request, so its answers (errors before authentication included) follow the shapes setting. */
export function answerShapes(store: Store) {
	return (_req: Request, res: Response, next: NextFunction): void => {
		res.locals.shapes = store.config.shapes;
		next();
	};
}

/** True when the request went through the public chain (admin answers are always documented JSON). */
export function isPublic(res: Response): boolean {
	return res.locals.shapes !== undefined;
}

/** A list answer: bare array when documented, otherwise wrapped as the shapes set says. */
export function sendList(res: Response, list: unknown[], name: string): void {
	const shapes = shapesOf(res);
	if (shapes === 'wrapped') res.status(200).json({ data: list });
	else if (shapes === 'minimal') res.status(200).json({ [name]: list });
	else res.status(200).json(list);
}

/** A write answered with a sentence: JSON as documented, text/plain (wrapped) or no body (minimal). */
export function sendWriteAnswer(
	res: Response,
	documented: Record<string, unknown>,
	sentence: string,
	minimal: { status: 200 | 204 },
): void {
	const shapes = shapesOf(res);
	if (shapes === 'wrapped') res.status(200).type('text/plain').send(sentence);
	else if (shapes === 'minimal') {
		if (minimal.status === 204) res.status(204).end();
		else res.status(200).setHeader('Content-Length', '0').end();
	} else res.status(200).json(documented);
}
