import { fromJson, toJson } from './run-store-rows.ts';
import type { ToolAuditEntry } from './tool-audit-log.ts';

/** The `tool_audit` table's columns as both SQL audit logs write and read them. */

export const TOOL_AUDIT_COLUMNS =
  'at, run_id, conversation_id, tool_call_id, name, user_id, trace_id, face, executor, effect, args, original_args, decision, policy, reason, outcome, error, duration_ms';

export interface ToolAuditRow {
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

/** The row an entry is written as (named after its columns). */
export function toToolAuditRow(entry: ToolAuditEntry): ToolAuditRow {
  return {
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
  };
}

export function toToolAuditEntry(row: ToolAuditRow): ToolAuditEntry {
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
