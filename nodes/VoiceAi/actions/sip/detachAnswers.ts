import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ApiCall } from '../types';
import { fetchSip, readCurrentSip } from './configuration';

// What an error answer of POST /sip/detach2 means for the number. A 404 is the spec's "resource does
// not exist": the number is not the organization's. The spec shows no 409 for POST /sip/detach2, so a
// 409 says nothing sure about the number's state: a listed direction may still be attached. The node
// reads the configuration (GET /sip/{phone_number}, which the spec allows) and reports success only
// when none of the listed directions is attached (docs/service-assumptions.md).

interface Detach {
	phone_number: string;
	names: string[];
	/** `Voice AI answered 409 (the service's text)`. */
	answered: string;
}

function notDetached(
	ctx: IExecuteFunctions,
	{ phone_number, names, answered }: Detach,
	found: string,
	advice: string,
	itemIndex: number,
): NodeApiError {
	const message = `SIP Detach of ${phone_number} (${names.join(', ')}) is not known to have happened: ${answered}`;
	return new NodeApiError(
		ctx.getNode(),
		{ status: 409, message },
		{ message, description: `${found} ${advice}`, httpCode: '409', itemIndex },
	);
}

/** After a 409 from detach2: success with what GET showed, or an error saying what is still attached. */
export async function checkDetachAfterConflict(
	ctx: IExecuteFunctions,
	api: ApiCall,
	detach: Detach,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { phone_number, names, answered } = detach;
	const read = `GET /sip/${phone_number}`;
	const unknown =
		'Check the number in the Voice AI dashboard (or with SIP Get) before running again.';
	let answer: unknown;
	try {
		answer = await fetchSip(api, phone_number);
	} catch (error) {
		const failed = `Reading the configuration to find out failed: ${(error as Error).message}.`;
		throw notDetached(ctx, detach, failed, unknown, itemIndex);
	}
	const current = readCurrentSip(answer);
	if (!current.readable) {
		const unread = `The configuration (${read}) could not be read to find out: ${current.reason}.`;
		throw notDetached(ctx, detach, unread, unknown, itemIndex);
	}
	const attached = names.filter((type) => current.directions.some((d) => d.type === type));
	if (attached.length > 0) {
		throw notDetached(
			ctx,
			detach,
			`${read} shows these directions still attached: ${attached.join(', ')}.`,
			`Detach only the directions that are attached (${attached.join(', ')}), then run again.`,
			itemIndex,
		);
	}
	const none = names.length > 1 ? 'neither direction' : `the ${names[0]} direction not`;
	return [
		{
			success: true,
			status: 409,
			phone_number,
			directions: names,
			attached: [],
			note: `${answered}; ${read} shows ${none} attached, so the number is detached as asked (for example when a detach is repeated after its answer was lost).`,
		},
	];
}

/** With Not Found Counts as Detached: the 404 as an output item that says so. */
export function notFoundItem({ phone_number, names, answered }: Detach): IDataObject {
	return {
		detached: false,
		notFound: true,
		status: 404,
		phone_number,
		directions: names,
		note: `${answered}: the organization of the API key has no such number. Nothing was detached; Not Found Counts as Detached is on, so this is an output item, not an error.`,
	};
}

/** The 404 as an error naming the number, the directions and the service's text. */
export function notFoundError(
	ctx: IExecuteFunctions,
	{ phone_number, names }: Detach,
	said: unknown,
	itemIndex: number,
): NodeApiError {
	const message = `SIP Detach of ${phone_number} (${names.join(', ')}): not found (404)${typeof said === 'string' ? `: ${said}` : ''}`;
	return new NodeApiError(
		ctx.getNode(),
		{ status: 404, message },
		{
			message,
			description:
				'The organization of the API key has no such number (a typo, or another organization’s number). If this detach was repeated after a lost answer (Options → Max Attempts), an earlier attempt may have gone through: SIP Get shows what the service has. Turn on Not Found Counts as Detached to get an item instead of this error.',
			httpCode: '404',
			itemIndex,
		},
	);
}
