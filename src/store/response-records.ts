/**
 * What a response of the Responses API fixes when it starts, beside its run: the model name, the
 * instructions, the host's function tools, the response it continues, its trace id and metadata.
 * A response is a run (same id); this is the part of it the chat face does not have.
 */
export interface ResponseRecord {
  /** The run's id, which is also the response's id. */
  id: string;
  userId: string;
  conversationId: string;
  createdAt: number;
  model: string;
  instructions: string | null;
  /** The host-declared function tools, as the request sent them. */
  tools: { type: 'function'; name: string; description?: string; parameters: Record<string, unknown> }[];
  previousResponseId: string | null;
  traceId: string | null;
  metadata: Record<string, string>;
}

export interface ResponseRecords {
  save(record: ResponseRecord): Promise<void>;
  /** The record, or undefined when there is none or it belongs to another user. */
  get(userId: string, id: string): Promise<ResponseRecord | undefined>;
}

export class MemoryResponseRecords implements ResponseRecords {
  readonly #records = new Map<string, ResponseRecord>();

  async save(record: ResponseRecord): Promise<void> {
    this.#records.set(record.id, structuredClone(record));
  }

  async get(userId: string, id: string): Promise<ResponseRecord | undefined> {
    const record = this.#records.get(id);
    return record?.userId === userId ? structuredClone(record) : undefined;
  }
}
