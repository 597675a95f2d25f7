import { type INodeProperties, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isRouteUnknown } from '../../transport/errors';
import { RequestsStopped } from '../../transport/pacing';
import { type ApiCall, defineOperation, request, send, toRecords } from '../types';
import { checkOneOf, fieldsIn, invalidField, readBoolean } from '../validation';
import { GET_SIP, readSip } from './configuration';
import { DIRECTIONS, readPhoneNumber, sipForm } from './fields';

const properties: INodeProperties[] = [
	{
		displayName: 'Directions',
		name: 'directions',
		type: 'multiOptions',
		options: DIRECTIONS.map((value) => ({ name: value[0].toUpperCase() + value.slice(1), value })),
		default: [...DIRECTIONS],
		required: true,
		description: 'Which directions to unlink from the number',
	},
	{
		displayName: 'Not Found Counts as Detached',
		name: 'notFoundAsDetached',
		type: 'boolean',
		default: false,
		description:
			'Whether a 404 (the organization of the API key has no such number) gives an output item with detached false and notFound true instead of an error. Off, a 404 fails the item, naming the number.',
	},
];

const FIELDS = fieldsIn(properties, ['directions', 'notFoundAsDetached']);
const DETACH = request('POST', '/sip/detach2');

// After a 409 (none in the spec: it proves nothing): why listed directions may still be attached.
async function stillAttached(api: ApiCall, phone: string, directions: string[]) {
	const unknown = 'Check the number with SIP Get (or in the Voice AI dashboard), then run again.';
	const current = await readSip(api, phone).catch((error: Error) => error);
	// Not read because another item failed hard: that item's error is the one to report (the router
	// drops an item stopped so), not this detach's "could not find out".
	if ([current, (current as { cause?: unknown }).cause].some((e) => e instanceof RequestsStopped))
		throw current;
	if (current instanceof Error)
		return `Reading the configuration to find out failed: ${current.message}. ${unknown}`;
	if (!current.readable)
		return `The configuration (GET /sip/${phone}) could not be read to find out: ${current.reason}. ${unknown}`;
	const list = directions.filter((t) => current.directions.some((d) => d.type === t)).join(', ');
	if (!list) return undefined;
	return `GET /sip/${phone} shows these directions still attached: ${list}. Detach only the directions that are attached (${list}), then run again.`;
}

type Detach = { phone_number: string; directions: string[]; notFoundAsDetached: boolean };
export const detach = defineOperation<Detach>({
	name: 'Detach',
	summary: 'Unlink a number from its SIP configuration and notify the carrier',
	action: 'Detach a SIP configuration',
	changesData: 'changes data',
	requests: [DETACH, { ...GET_SIP, when: 'after a 409, to see what is attached' }],
	...sipForm(properties),
	recordKeyOf: ({ phone_number }) => phone_number,
	validate(itemIndex) {
		const phone_number = readPhoneNumber(this, itemIndex);
		let raw = this.getNodeParameter('directions', itemIndex, []) as unknown;
		if (typeof raw === 'string') raw = raw.split(',').flatMap((entry) => entry.trim() || []);
		if (!Array.isArray(raw) || raw.length === 0)
			throw invalidField(this, itemIndex, FIELDS.directions, 'choose inbound, outbound or both');
		const check = (entry: unknown) =>
			checkOneOf(this, itemIndex, FIELDS.directions, String(entry), DIRECTIONS);
		return {
			phone_number,
			directions: [...new Set(raw.map(check))],
			notFoundAsDetached: readBoolean(this, itemIndex, FIELDS.notFoundAsDetached, false),
		};
	},
	async execute({ phone_number, directions, notFoundAsDetached }, api) {
		try {
			const body = { phone_number, directions: directions.map((type) => ({ type })) };
			return toRecords(await send(api, DETACH, { body }));
		} catch (caught) {
			if (!(caught instanceof NodeApiError))
				throw new NodeOperationError(this.getNode(), caught as Error);
			const error = caught;
			const status = Number(error.httpCode);
			const said = error.errorResponse?.serviceMessage;
			const answered = `Voice AI answered ${status}${typeof said === 'string' ? ` (${said})` : ''}`;
			// The service's error, told as this detach's outcome (its status and item stay).
			const fail = (message: string, description: string) =>
				Object.assign(error, { message, description });
			const what = `SIP Detach of ${phone_number} (${directions.join(', ')})`;
			if (status === 409) {
				const found = await stillAttached(api, phone_number, directions);
				if (found) throw fail(`${what} is not known to have happened: ${answered}`, found);
				const none =
					directions.length > 1 ? 'neither direction' : `the ${directions[0]} direction not`;
				const note = `${answered}; GET /sip/${phone_number} shows ${none} attached, so the number is detached as asked (for example when a detach is repeated after its answer was lost).`;
				return [{ success: true, status, phone_number, directions, attached: [], note }];
			}
			// A 404 is a number the organization lacks, unless the base URL itself answers 404.
			if (status !== 404 || isRouteUnknown(error)) throw error;
			if (notFoundAsDetached) {
				const note = `${answered}: the organization of the API key has no such number. Nothing was detached; Not Found Counts as Detached is on, so this is an output item, not an error.`;
				return [{ detached: false, notFound: true, status, phone_number, directions, note }];
			}
			throw fail(
				`${what}: not found (404)${typeof said === 'string' ? `: ${said}` : ''}`,
				'The organization of the API key has no such number (a typo, or another organization’s number). If this detach was repeated after a lost answer (Options → Max Attempts), an earlier attempt may have gone through: SIP Get shows what the service has. Turn on Not Found Counts as Detached to get an item instead of this error.',
			);
		}
	},
});
