import type { Database, Statement } from 'better-sqlite3';
import { fromJson, toJson } from './sqlite-run-store-rows.ts';
import {
  type ToolAuditEntry,
  type ToolAuditFilter,
  type ToolAuditLog,
  toolAuditLimit,
} from './tool-audit-log.ts';

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

const COLUMNS =
  'at, run_id, conversation_id, tool_call_id, name, user_id, trace_id, face, executor, effect, args, original_args, decision, policy, reason, outcome, error, duration_ms';

interface ToolAuditRow {
  at: number;
  run_id: string;
  conversation_id: string;
  tool_call_id: string;
  name: string;
  user_id: string;
  trace_id: string | null;
  face: string;
  executor: string;
  effect: string;
  args: string | null;
  original_args: string | null;
  decision: string;
  policy: string | null;
  reason: string | null;
  outcome: string;
  error: string | null;
  duration_ms: number | null;
}

/** The `ToolAuditLog` in the product's SQLite file (opened by `openDatabase`), next to the run store. */
export class SqliteToolAuditLog implements ToolAuditLog {
  readonly #insert: Statement;
  readonly #byUser: Statement;
  readonly #byRun: Statement;

  constructor(database: Database) {
    database.exec(CREATE_TOOL_AUDIT);
    this.#insert = database.prepare(
      `INSERT INTO tool_audit (${COLUMNS}) VALUES (@at, @run_id, @conversation_id, @tool_call_id, @name,
         @user_id, @trace_id, @face, @executor, @effect, @args, @original_args, @decision, @policy, @reason,
         @outcome, @error, @duration_ms)`,
    );
    this.#byUser = database.prepare(
      `SELECT ${COLUMNS} FROM tool_audit WHERE user_id = ? ORDER BY ordinal DESC LIMIT ?`,
    );
    this.#byRun = database.prepare(
      `SELECT ${COLUMNS} FROM tool_audit WHERE user_id = ? AND run_id = ? ORDER BY ordinal DESC LIMIT ?`,
    );
  }

  async record(entry: ToolAuditEntry): Promise<void> {
    this.#insert.run({
      at: entry.at,
      run_id: entry.runId,
      conversation_id: entry.conversationId,
      tool_call_id: entry.toolCallId,
      name: entry.name,
      user_id: entry.userId,
      trace_id: entry.traceId ?? null,
      face: entry.face,
      executor: entry.executor,
      effect: entry.effect,
      args: toJson(entry.args),
      original_args: toJson(entry.originalArgs),
      decision: entry.decision,
      policy: entry.policy ?? null,
      reason: entry.reason ?? null,
      outcome: entry.outcome,
      error: entry.error ?? null,
      duration_ms: entry.durationMs ?? null,
    });
  }

  async list(filter: ToolAuditFilter): Promise<ToolAuditEntry[]> {
    const limit = toolAuditLimit(filter.limit);
    const rows = (
      filter.runId === undefined
        ? this.#byUser.all(filter.userId, limit)
        : this.#byRun.all(filter.userId, filter.runId, limit)
    ) as ToolAuditRow[];
    return rows.map(toEntry);
  }
}

function toEntry(row: ToolAuditRow): ToolAuditEntry {
  const entry: ToolAuditEntry = {
    at: row.at,
    runId: row.run_id,
    conversationId: row.conversation_id,
    toolCallId: row.tool_call_id,
    name: row.name,
    userId: row.user_id,
    face: row.face as ToolAuditEntry['face'],
    executor: row.executor as ToolAuditEntry['executor'],
    effect: row.effect as ToolAuditEntry['effect'],
    args: fromJson(row.args),
    decision: row.decision as ToolAuditEntry['decision'],
    outcome: row.outcome as ToolAuditEntry['outcome'],
  };
  if (row.trace_id !== null) entry.traceId = row.trace_id;
  if (row.original_args !== null) entry.originalArgs = fromJson(row.original_args);
  if (row.policy !== null) entry.policy = row.policy;
  if (row.reason !== null) entry.reason = row.reason;
  if (row.error !== null) entry.error = row.error;
  if (row.duration_ms !== null) entry.durationMs = row.duration_ms;
  return entry;
}
