import type { ToolAuditEntry, ToolCallFace } from '../../store/index.ts';

/**
 * The tool audit log as the runtime writes it: `RunManagerOptions.audit` gets one entry per tool call
 * once its outcome is known. The types live with their implementations in the store layer
 * (`SqliteToolAuditLog`, `MemoryToolAuditLog`), which the runtime may import but not the reverse.
 */

/** What the policies decided for a call, kept until its outcome is known (across a pause too). */
export interface PendingAudit {
  decision: ToolAuditEntry['decision'];
  policy?: string;
  reason?: string;
  originalArgs?: unknown;
  /** When the call was handed on (validated and vetted), epoch milliseconds. */
  openedAt: number;
}

/** A call whose audit entry is not written yet. */
export interface AuditedCall {
  toolCallId: string;
  name: string;
  args: unknown;
  executor: ToolAuditEntry['executor'];
  effect: ToolAuditEntry['effect'];
  audit: PendingAudit;
}

export interface AuditContext {
  runId: string;
  conversationId: string;
  userId: string;
  traceId?: string;
  face?: ToolCallFace;
}

/** The entry for `call` with its outcome. */
export function toolAuditEntry(
  context: AuditContext,
  call: AuditedCall,
  outcome: ToolAuditEntry['outcome'],
  detail: { error?: string; durationMs?: number; at?: number } = {},
): ToolAuditEntry {
  const { audit } = call;
  return {
    at: detail.at ?? Date.now(),
    runId: context.runId,
    conversationId: context.conversationId,
    toolCallId: call.toolCallId,
    name: call.name,
    userId: context.userId,
    ...(context.traceId !== undefined ? { traceId: context.traceId } : {}),
    face: context.face ?? 'chat',
    executor: call.executor,
    effect: call.effect,
    args: call.args,
    ...(audit.originalArgs !== undefined ? { originalArgs: audit.originalArgs } : {}),
    decision: audit.decision,
    ...(audit.policy !== undefined ? { policy: audit.policy } : {}),
    ...(audit.reason !== undefined ? { reason: audit.reason } : {}),
    outcome,
    ...(detail.error !== undefined ? { error: detail.error } : {}),
    ...(detail.durationMs !== undefined ? { durationMs: Math.max(0, Math.round(detail.durationMs)) } : {}),
  };
}
