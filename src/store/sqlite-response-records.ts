import type Database from 'better-sqlite3';
import type { ResponseRecord, ResponseRecords } from './response-records.ts';

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
