import { hashKey, maskKey, newApiKey, newId } from './keys';
import type {
	ApiKeyRecord,
	CarrierOperation,
	Delivery,
	Fault,
	Org,
	RequestLogEntry,
	SandboxConfig,
} from './types';

const REQUEST_LOG_LIMIT = 10_000;

/** Everything the sandbox knows, in memory, for the life of one server. */
export class Store {
	readonly orgs = new Map<string, Org>();
	readonly keys = new Map<string, ApiKeyRecord>();
	private readonly keysByHash = new Map<string, ApiKeyRecord>();
	/** Chatbot ids, agent ids and phone numbers are unique across organizations; these map them to their owner. */
	readonly chatbotOwner = new Map<string, string>();
	readonly agentOwner = new Map<string, string>();
	readonly numberOwner = new Map<string, string>();
	readonly requestLog: RequestLogEntry[] = [];
	readonly deliveries: Delivery[] = [];
	faults: Fault[] = [];
	private carrierSeq = 0;

	constructor(readonly config: SandboxConfig) {}

	createOrg(name: string, id = newId('org', 12)): Org {
		const org: Org = {
			id,
			name,
			webhook: null,
			chatbots: new Map(),
			agents: [],
			contacts: [],
			sip: new Map(),
			trustProducts: new Map(),
			uploads: [],
			carrierLog: [],
			shapes: null,
		};
		this.orgs.set(id, org);
		return org;
	}

	/** Returns the full key: the only time it exists outside the caller's hands. */
	createKey(orgId: string, name: string): { record: ApiKeyRecord; apiKey: string } {
		const apiKey = newApiKey();
		const record: ApiKeyRecord = {
			id: newId('key', 12),
			orgId,
			name,
			hash: hashKey(apiKey),
			prefix: maskKey(apiKey),
			revoked: false,
			exposed: false,
			created_at: new Date().toISOString(),
			last_used_at: null,
		};
		this.keys.set(record.id, record);
		this.keysByHash.set(record.hash, record);
		return { record, apiKey };
	}

	findKey(presented: string): ApiKeyRecord | undefined {
		return this.keysByHash.get(hashKey(presented));
	}

	logCarrier(org: Org, op: Omit<CarrierOperation, 'seq' | 'at'>): CarrierOperation {
		const entry: CarrierOperation = { seq: ++this.carrierSeq, at: new Date().toISOString(), ...op };
		org.carrierLog.push(entry);
		return entry;
	}

	logRequest(entry: RequestLogEntry): void {
		this.requestLog.push(entry);
		if (this.requestLog.length > REQUEST_LOG_LIMIT)
			this.requestLog.splice(0, this.requestLog.length - REQUEST_LOG_LIMIT);
	}
}
