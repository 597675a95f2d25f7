/**
 * examples/sip-audit.json over many numbers in queue mode: the sandbox holds `count` SIP numbers
 * (every tenth with its inbound port off the expected 5060), the example is published with its
 * schedule brought forward to the next 20 seconds (or run by hand) and its number list replaced by
 * those numbers, and its first run is read back: where it ran and what it reported.
 */
import { loadExample, pollUntil, type WorkflowJson } from '../n8n';
import type { QueueRig } from './rig';
import { whoRan } from './test-listen';

export interface SipAuditFigures {
	numbers: number;
	drifted: number;
	executionId: string;
	mode: string;
	status: string;
	ranOn: string;
	/** Items out of "Compare with expected" and the numbers they name. */
	compared: number;
	comparedNumbers: number;
	/** Numbers Compare found drifting, and report items out of "Flag drift". */
	foundDrifting: number;
	reported: number;
	/** Reported numbers that are exactly the drifted ones. */
	reportMatchesDrift: boolean;
	seconds: number;
}

const EXPECTED = { endpoint: 'sip:pbx.acme-dental.example', port: 5060, transport: 'udp' };

export function auditNumbers(count: number): Array<{ phone: string; drifted: boolean }> {
	return Array.from({ length: count }, (_, i) => ({
		phone: `+1628555${String(i).padStart(4, '0')}`,
		drifted: i % 10 === 0,
	}));
}

/**
 * `how`: "schedule" publishes the example and reads its first scheduled run; "manual" runs it as the
 * editor's "Execute workflow" does (on a worker when manual executions are offloaded, as in n8n 3.0).
 */
export async function sipAuditOnWorker(
	rig: QueueRig,
	count: number,
	how: 'schedule' | 'manual' = 'schedule',
): Promise<SipAuditFigures> {
	const numbers = auditNumbers(count);
	await rig.sandbox.admin.request('POST', `/__sandbox/orgs/${rig.org}/seed`, {
		sip: numbers.map(({ phone, drifted }, i) => ({
			phone_number: phone,
			trunkName: `audit-${i}`,
			directions: (['inbound', 'outbound'] as const).map((type) => ({
				type,
				sip_endpoint: EXPECTED.endpoint,
				options: {
					port: drifted && type === 'inbound' ? 5080 : EXPECTED.port,
					transport: EXPECTED.transport,
					secure_media: true,
				},
			})),
		})),
	});

	const example = loadExample('sip-audit');
	const nodes = example.nodes.map((node) => {
		if (node.name === 'Every morning') {
			return {
				...node,
				parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 20 }] } },
			};
		}
		if (node.name === 'Audit settings') {
			const settings = JSON.parse(String(node.parameters.jsonOutput)) as Record<string, unknown>;
			const jsonOutput = JSON.stringify({ ...settings, numbers: numbers.map((n) => n.phone) });
			return { ...node, parameters: { ...node.parameters, jsonOutput } };
		}
		return node;
	});
	const workflow: WorkflowJson = { ...example, name: `SIP audit of ${count} numbers`, nodes };
	const { api } = rig.deployment;
	const saved = await api.importWorkflow(workflow, { voiceAiApi: rig.voiceAiCredential });
	const started = Date.now();
	const first =
		how === 'manual'
			? { id: Number((await api.runWorkflow(saved, 'Every morning', { timeoutMs: 600_000 })).id) }
			: await firstScheduledRun(rig, saved);
	const run = await pollUntil(
		async () => {
			const { rows } = await rig.n8nDb.query<{ mode: string; status: string }>(
				'SELECT mode, status FROM execution_entity WHERE id = $1',
				[first.id],
			);
			return rows[0] && !['new', 'running', 'waiting'].includes(rows[0].status)
				? rows[0]
				: undefined;
		},
		{ timeoutMs: 600_000, intervalMs: 1_000, what: `SIP audit run ${first.id} to finish` },
	);
	const seconds = (Date.now() - started) / 1000;
	const detail = await api.getExecution(String(first.id));
	const compared = (detail.outputs['Compare with expected'] ?? []) as Array<{
		phone_number?: string;
		status?: string;
	}>;
	const report = (detail.outputs['Flag drift'] ?? []) as Array<{ phone_number?: string }>;
	const drifted = new Set(numbers.filter((n) => n.drifted).map((n) => n.phone));
	const reportedNumbers = new Set(report.map((item) => item.phone_number));
	const seeded = new Set(numbers.map((n) => n.phone));
	return {
		numbers: count,
		drifted: drifted.size,
		executionId: String(first.id),
		mode: run.mode,
		status: run.status,
		ranOn: whoRan(rig, String(first.id)),
		compared: compared.length,
		comparedNumbers: new Set(
			compared.map((item) => item.phone_number).filter((p) => seeded.has(p ?? '')),
		).size,
		foundDrifting: compared.filter((item) => item.status === 'drift').length,
		reported: report.length,
		reportMatchesDrift:
			reportedNumbers.size === drifted.size && [...drifted].every((p) => reportedNumbers.has(p)),
		seconds: Math.round(seconds),
	};
}

async function firstScheduledRun(rig: QueueRig, saved: { id: string }): Promise<{ id: number }> {
	const { api } = rig.deployment;
	await api.activateWorkflow(saved);
	try {
		return await pollUntil(
			async () =>
				(
					await rig.n8nDb.query<{ id: number }>(
						'SELECT id FROM execution_entity WHERE "workflowId" = $1 ORDER BY id LIMIT 1',
						[saved.id],
					)
				).rows[0],
			{ timeoutMs: 90_000, what: 'the first scheduled run of the SIP audit' },
		);
	} finally {
		await api.deactivateWorkflow(saved);
	}
}
