import type Database from 'better-sqlite3';

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

/** Response records in the product's SQLite file (table `responses`, created when missing). */
export class SqliteResponseRecords implements ResponseRecords {
  readonly #insert: Database.Statement;
  readonly #select: Database.Statement;

  constructor(database: Database.Database) {
    database.exec(`CREATE TABLE IF NOT EXISTS responses (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      record TEXT NOT NULL
    )`);
    this.#insert = database.prepare(
      'INSERT OR REPLACE INTO responses (id, user_id, conversation_id, created_at, record) VALUES (?, ?, ?, ?, ?)',
    );
    this.#select = database.prepare('SELECT record FROM responses WHERE id = ? AND user_id = ?');
  }

  async save(record: ResponseRecord): Promise<void> {
    this.#insert.run(
      record.id,
      record.userId,
      record.conversationId,
      record.createdAt,
      JSON.stringify(record),
    );
  }

  async get(userId: string, id: string): Promise<ResponseRecord | undefined> {
    const row = this.#select.get(id, userId) as { record: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.record) as ResponseRecord);
  }
}
