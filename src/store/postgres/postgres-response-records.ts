import type pg from 'pg';
import type { ResponseRecord, ResponseRecords } from '../response-records.ts';
import { migratePostgres, type PostgresSchema } from './postgres-migrations.ts';

export const POSTGRES_RESPONSES_SCHEMA: PostgresSchema = {
  component: 'responses',
  migrations: [
    `CREATE TABLE responses (
       id TEXT PRIMARY KEY,
       user_id TEXT NOT NULL,
       conversation_id TEXT NOT NULL,
       created_at BIGINT NOT NULL,
       record TEXT NOT NULL
     );`,
  ],
};

/** Response records on PostgreSQL: a response started on one instance is read on any other. */
export class PostgresResponseRecords implements ResponseRecords {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  static async open(pool: pg.Pool): Promise<PostgresResponseRecords> {
    await migratePostgres(pool, POSTGRES_RESPONSES_SCHEMA);
    return new PostgresResponseRecords(pool);
  }

  async save(record: ResponseRecord): Promise<void> {
    await this.#pool.query(
      `INSERT INTO responses (id, user_id, conversation_id, created_at, record) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, conversation_id = excluded.conversation_id,
         created_at = excluded.created_at, record = excluded.record`,
      [record.id, record.userId, record.conversationId, record.createdAt, JSON.stringify(record)],
    );
  }

  async get(userId: string, id: string): Promise<ResponseRecord | undefined> {
    const row = (
      await this.#pool.query<{ record: string }>(
        'SELECT record FROM responses WHERE id = $1 AND user_id = $2',
        [id, userId],
      )
    ).rows[0];
    return row === undefined ? undefined : (JSON.parse(row.record) as ResponseRecord);
  }
}
