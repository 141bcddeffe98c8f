import type { Database, Statement } from 'better-sqlite3';
import {
  type ToolAuditEntry,
  type ToolAuditFilter,
  type ToolAuditLog,
  toolAuditLimit,
} from './tool-audit-log.ts';
import {
  TOOL_AUDIT_COLUMNS,
  type ToolAuditRow,
  toToolAuditEntry,
  toToolAuditRow,
} from './tool-audit-rows.ts';

/**
 * The `tool_audit` table, created by the audit log itself: it is append-only and keyed by nothing
 * the run store owns (no foreign keys), so deleting a run or a conversation keeps its audit trail.
 */
const CREATE_TOOL_AUDIT = `CREATE TABLE IF NOT EXISTS tool_audit (
    ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
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
    duration_ms REAL
  );
  CREATE INDEX IF NOT EXISTS tool_audit_by_user ON tool_audit(user_id, ordinal);
  CREATE INDEX IF NOT EXISTS tool_audit_by_run ON tool_audit(run_id, ordinal);`;

/** The `ToolAuditLog` in the product's SQLite file (opened by `openDatabase`), next to the run store. */
export class SqliteToolAuditLog implements ToolAuditLog {
  readonly #insert: Statement;
  readonly #byUser: Statement;
  readonly #byRun: Statement;

  constructor(database: Database) {
    database.exec(CREATE_TOOL_AUDIT);
    this.#insert = database.prepare(
      `INSERT INTO tool_audit (${TOOL_AUDIT_COLUMNS}) VALUES (@at, @run_id, @conversation_id, @tool_call_id, @name,
         @user_id, @trace_id, @face, @executor, @effect, @args, @original_args, @decision, @policy, @reason,
         @outcome, @error, @duration_ms)`,
    );
    this.#byUser = database.prepare(
      `SELECT ${TOOL_AUDIT_COLUMNS} FROM tool_audit WHERE user_id = ? ORDER BY ordinal DESC LIMIT ?`,
    );
    this.#byRun = database.prepare(
      `SELECT ${TOOL_AUDIT_COLUMNS} FROM tool_audit WHERE user_id = ? AND run_id = ? ORDER BY ordinal DESC LIMIT ?`,
    );
  }

  async record(entry: ToolAuditEntry): Promise<void> {
    this.#insert.run(toToolAuditRow(entry));
  }

  async list(filter: ToolAuditFilter): Promise<ToolAuditEntry[]> {
    const limit = toolAuditLimit(filter.limit);
    const rows = (
      filter.runId === undefined
        ? this.#byUser.all(filter.userId, limit)
        : this.#byRun.all(filter.userId, filter.runId, limit)
    ) as ToolAuditRow[];
    return rows.map(toToolAuditEntry);
  }
}
