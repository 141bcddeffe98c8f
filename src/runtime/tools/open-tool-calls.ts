import type { ToolCallRequest } from '../../models/index.ts';
import type { ToolAuditEntry } from '../../store/index.ts';
import type { AgentCheckpoint } from '../agent/agent-checkpoint.ts';
import type { AgentOptions } from '../agent/agent-options.ts';
import { type AuditedCall, type PendingAudit, toolAuditEntry } from './tool-audit.ts';

/** Who runs a tool call, and what kind of call it is. */
export type ToolClassification = Pick<AuditedCall, 'executor' | 'effect'>;

/** Calls of this stretch whose outcome (and audit entry) is not known yet. */
export class OpenToolCalls {
  readonly #options: Pick<AgentOptions, 'context' | 'onToolAudit'>;
  readonly #open = new Map<string, AuditedCall>();

  constructor(options: Pick<AgentOptions, 'context' | 'onToolAudit'>) {
    this.#options = options;
  }

  /** A call the model made: open until its outcome is known. */
  open(request: ToolCallRequest, classification: ToolClassification): void {
    this.#open.set(request.id, {
      toolCallId: request.id,
      name: request.name,
      args: request.arguments,
      ...classification,
      audit: { decision: 'allow', openedAt: Date.now() },
    });
  }

  /** The calls a paused checkpoint waits on are open again while the run goes on from it. */
  reopen(checkpoint: AgentCheckpoint): void {
    const now = Date.now();
    for (const call of checkpoint.pending) {
      this.#open.set(call.toolCallId, {
        toolCallId: call.toolCallId,
        name: call.name,
        args: call.args,
        executor: 'server',
        effect: 'write',
        audit: call.audit ?? { decision: 'allow', openedAt: now },
      });
    }
    for (const call of checkpoint.hostPending ?? []) {
      this.#open.set(call.toolCallId, {
        toolCallId: call.toolCallId,
        name: call.name,
        args: call.args,
        executor: 'host',
        effect: 'host',
        audit: call.audit ?? { decision: 'allow', openedAt: now },
      });
    }
  }

  get(toolCallId: string): AuditedCall | undefined {
    return this.#open.get(toolCallId);
  }

  setArgs(toolCallId: string, args: unknown): void {
    const open = this.#open.get(toolCallId);
    if (open) open.args = args;
  }

  pendingAudit(toolCallId: string): PendingAudit {
    return this.#open.get(toolCallId)?.audit ?? { decision: 'allow', openedAt: Date.now() };
  }

  /** Write the audit entry of an open call with its outcome; best effort, never failing the run. */
  audit(
    toolCallId: string,
    outcome: ToolAuditEntry['outcome'],
    detail: { error?: string; durationMs?: number } = {},
  ): void {
    const call = this.#open.get(toolCallId);
    if (call === undefined) return;
    this.#open.delete(toolCallId);
    const { onToolAudit, context } = this.#options;
    if (onToolAudit === undefined) return;
    try {
      onToolAudit(toolAuditEntry(context, call, outcome, detail));
    } catch {
      // The audit sink reports its own failures; a tool call never fails because of it.
    }
  }

  /** Every call still open ends with `outcome` (a stop, a failure of the run). */
  settle(outcome: 'cancelled' | 'failed', error: string): void {
    for (const call of [...this.#open.values()]) {
      this.audit(call.toolCallId, outcome, { error, durationMs: Date.now() - call.audit.openedAt });
    }
  }

  /** A call another stretch settles (it claimed the single execution): no entry from this one. */
  delete(toolCallId: string): void {
    this.#open.delete(toolCallId);
  }

  clear(): void {
    this.#open.clear();
  }
}
