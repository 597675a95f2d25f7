import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ApiCall } from '../types';
import { fetchSip, readCurrentSip } from './configuration';

// The spec shows no 409 for POST /sip/detach2, so a 409 says nothing sure about the number's state (the
// sandbox answers it when a listed direction is not attached; one listed direction may still be). The
// node reads the configuration (GET /sip/{phone_number}, which the spec allows) and reports success only
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
