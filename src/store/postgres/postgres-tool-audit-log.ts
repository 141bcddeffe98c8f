import type pg from 'pg';
import {
  type ToolAuditEntry,
  type ToolAuditFilter,
  type ToolAuditLog,
  toolAuditLimit,
} from '../tool-audit-log.ts';
import {
  TOOL_AUDIT_COLUMNS,
  type ToolAuditRow,
  toToolAuditEntry,
  toToolAuditRow,
} from '../tool-audit-rows.ts';
import { migratePostgres, type PostgresSchema } from './postgres-migrations.ts';

/** Append-only, with no foreign keys into the run store: deleting a run keeps its audit trail. */
export const POSTGRES_TOOL_AUDIT_SCHEMA: PostgresSchema = {
  component: 'tool_audit',
  migrations: [
    `CREATE TABLE tool_audit (
       ordinal BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       at BIGINT NOT NULL,
       run_id TEXT NOT NULL,
       conversation_id TEXT NOT NULL,
       tool_call_id TEXT NOT NULL,
       name TEXT NOT NULL,
       user_id TEXT NOT NULL,
       trace_id TEXT,
       face TEXT NOT NULL,
       executor TEXT NOT NULL,
       effect TEXT NOT NULL,
       args TEXT,
       original_args TEXT,
       decision TEXT NOT NULL,
       policy TEXT,
       reason TEXT,
       outcome TEXT NOT NULL,
       error TEXT,
       duration_ms DOUBLE PRECISION
     );
     CREATE INDEX tool_audit_by_user ON tool_audit(user_id, ordinal);
     CREATE INDEX tool_audit_by_run ON tool_audit(run_id, ordinal);`,
  ],
};

const COLUMN_NAMES = TOOL_AUDIT_COLUMNS.split(',').map((column) => column.trim()) as (keyof ToolAuditRow)[];
const INSERT = `INSERT INTO tool_audit (${TOOL_AUDIT_COLUMNS}) VALUES (${COLUMN_NAMES.map((_, index) => `$${index + 1}`).join(', ')})`;

/** The `ToolAuditLog` on PostgreSQL, shared by every instance. */
export class PostgresToolAuditLog implements ToolAuditLog {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  static async open(pool: pg.Pool): Promise<PostgresToolAuditLog> {
    await migratePostgres(pool, POSTGRES_TOOL_AUDIT_SCHEMA);
    return new PostgresToolAuditLog(pool);
  }

  async record(entry: ToolAuditEntry): Promise<void> {
    const row = toToolAuditRow(entry);
    await this.#pool.query(
      INSERT,
      COLUMN_NAMES.map((column) => row[column]),
    );
  }

  async list(filter: ToolAuditFilter): Promise<ToolAuditEntry[]> {
    const limit = toolAuditLimit(filter.limit);
    const { rows } =
      filter.runId === undefined
        ? await this.#pool.query<ToolAuditRow>(
            `SELECT ${TOOL_AUDIT_COLUMNS} FROM tool_audit WHERE user_id = $1 ORDER BY ordinal DESC LIMIT $2`,
            [filter.userId, limit],
          )
        : await this.#pool.query<ToolAuditRow>(
            `SELECT ${TOOL_AUDIT_COLUMNS} FROM tool_audit WHERE user_id = $1 AND run_id = $2
             ORDER BY ordinal DESC LIMIT $3`,
            [filter.userId, filter.runId, limit],
          );
    return rows.map(toToolAuditEntry);
  }
}
