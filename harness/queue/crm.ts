/**
 * The CRM of the queue suite, the benchmark and the queue demo: a table in the deployment's Postgres
 * (database "crm") that counts how often each conversation was written, and the workflow that writes
 * it: Voice AI Trigger -> (Voice AI Conversation > Pass Once) -> Postgres upsert keyed by conversation id.
 */
import type { Client } from 'pg';

import { NODE_TYPES, type WorkflowJson } from '../n8n';

export const CRM_DATABASE = 'crm';

export async function createCrmTable(client: Client): Promise<void> {
	await client.query(`CREATE TABLE IF NOT EXISTS crm_contacts (
		conversation_id text PRIMARY KEY,
		name text,
		phone text,
		writes integer NOT NULL DEFAULT 1,
		first_written_at timestamptz NOT NULL DEFAULT now(),
		last_written_at timestamptz NOT NULL DEFAULT now()
	)`);
	await client.query('TRUNCATE crm_contacts');
}

/** Rows, and rows written more than once, in the CRM table. */
export async function crmFigures(
	client: Client,
): Promise<{ rows: number; writtenTwice: number; ids: Set<string>; writtenTwiceIds: Set<string> }> {
	const { rows } = await client.query<{ conversation_id: string; writes: number }>(
		'SELECT conversation_id, writes FROM crm_contacts',
	);
	return {
		rows: rows.length,
		writtenTwice: rows.filter((row) => row.writes > 1).length,
		ids: new Set(rows.map((row) => row.conversation_id)),
		writtenTwiceIds: new Set(
			rows.filter((row) => row.writes > 1).map((row) => row.conversation_id),
		),
	};
}

/** The upsert: one row per conversation; `writes` counts every write that reached the CRM. */
export const CRM_UPSERT = `INSERT INTO crm_contacts (conversation_id, name, phone) VALUES ($1, $2, $3)
ON CONFLICT (conversation_id) DO UPDATE SET name = EXCLUDED.name, phone = EXCLUDED.phone,
  writes = crm_contacts.writes + 1, last_written_at = now()`;

export interface CrmWorkflowOptions {
	/** Put Voice AI > Conversation > Pass Once between the trigger and the write. */
	passOnce: boolean;
	/** The trigger's "Answer the Service" (respondWhen); undefined leaves the parameter out. */
	respondWhen?: 'onReceived' | 'lastNode';
	voiceAiCredential: { id: string; name: string };
	postgresCredential: { id: string; name: string };
	name?: string;
}

/** The `index`-th node from the left, with a fixed id so that every import of the workflow matches. */
const place = (index: number, name: string, type: string, typeVersion: number) => ({
	id: `a0000000-0000-4000-8000-00000000000${index}`,
	name,
	type,
	typeVersion,
	position: [240 * (index - 1), 0],
});

export function crmWorkflow(options: CrmWorkflowOptions): WorkflowJson {
	const trigger = {
		...place(1, 'Conversation completed', NODE_TYPES.trigger, 1),
		webhookId: 'a0000000-0000-4000-8000-0000000000ff',
		parameters: {
			output: 'variables',
			whenOwnerUnknown: 'listen',
			...(options.respondWhen ? { respondWhen: options.respondWhen } : {}),
			options: {},
		},
		credentials: { voiceAiApi: options.voiceAiCredential },
	};
	const passOnce = {
		...place(2, 'Pass each conversation once', NODE_TYPES.action, 1),
		parameters: { resource: 'conversation', operation: 'passOnce' },
		credentials: { voiceAiApi: options.voiceAiCredential },
	};
	const write = {
		...place(3, 'Upsert contact', 'n8n-nodes-base.postgres', 2.6),
		parameters: {
			operation: 'executeQuery',
			query: CRM_UPSERT,
			options: {
				queryReplacement:
					'={{ [$json._voiceAi.conversationId, $json.name ?? null, $json.phone ?? null] }}',
			},
		},
		credentials: { postgres: options.postgresCredential },
	};
	const nodes = options.passOnce ? [trigger, passOnce, write] : [trigger, write];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		name: options.name ?? `CRM sync (queue${options.passOnce ? ', pass once' : ''})`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
}
