/**
 * What happened to each conversation a scenario lost: its deliveries as the service saw them, the
 * balancer's log of each attempt (which processor, what status, when), the executions that carried it
 * and whether Pass Once recorded it. Printed by the queue suite when a scenario misses one, so a lost
 * conversation is explained by the run that lost it.
 */
import { createHash } from 'node:crypto';
import type { Client } from 'pg';

import type { Delivery } from '../sandboxAdmin';
import type { BalancerEntry } from './servers';

export async function explainMissing(options: {
	missingIds: string[];
	deliveries: Delivery[];
	n8nDb: Client;
	workflowId: string;
	/** The balancer's log of the scenario's requests. */
	balancer: BalancerEntry[];
	processorOf: (upstream: string) => string;
	startedAt: number;
	limit?: number;
}): Promise<string[]> {
	const { missingIds, deliveries, n8nDb, workflowId, balancer, processorOf, startedAt } = options;
	const seconds = (msec: number) => `${(msec - startedAt / 1000).toFixed(1)} s`;
	const lines: string[] = [];
	for (const id of missingIds.slice(0, options.limit ?? 10)) {
		const attempts = deliveries
			.filter((d) => d.conversationId === id)
			.map((d) => {
				const answers = balancer
					.filter((entry) => entry.delivery === d.id)
					.map(
						(entry) =>
							`${entry.status} from ${entry.upstreams.map(processorOf).join('>') || 'no upstream'} at ${seconds(entry.msec)}`,
					);
				return `${d.status} after ${d.attempts} attempt(s) [${d.responseCodes.join(',')}]: ${answers.join('; ') || 'not in the balancer log'}`;
			});
		const { rows: runs } = await n8nDb.query<{ id: string; status: string }>(
			`SELECT e.id, e.status FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id
			 WHERE e."workflowId" = $1 AND d.data LIKE $2`,
			[workflowId, `%${id}%`],
		);
		const { rows: recorded } = await n8nDb.query<{ count: string }>(
			`SELECT count(*) AS count FROM processed_data WHERE "workflowId" = $1 AND value::text LIKE $2`,
			// n8n's processed-data store keeps an MD5 (base64) of each value.
			[workflowId, `%${createHash('md5').update(id).digest('base64')}%`],
		);
		lines.push(
			`missing ${id}: ${attempts.join(' | ')}; executions carrying it: ${runs.map((r) => `${r.id} (${r.status})`).join(', ') || 'none'}; ` +
				`recorded by Pass Once: ${Number(recorded[0]?.count ?? 0) > 0 ? 'yes' : 'no'}`,
		);
	}
	return lines;
}
