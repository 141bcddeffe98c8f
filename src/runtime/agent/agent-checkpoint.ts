import type { ChatMessage } from '../../models/index.ts';
import type { PendingAudit } from '../tools/tool-audit.ts';

/** Where a run stands between model turns; saved while paused so a restart can resume it. */
export interface AgentCheckpoint {
  transcript: ChatMessage[];
  loadedSkills: string[];
  iterations: number;
  /** Write calls waiting for a decision, with what the model asked for. */
  pending: PendingWrite[];
  /**
   * Host tool calls waiting for the host's results. When `pending` is not empty too, the run waits
   * for the decisions first, then for these. Absent in checkpoints of older versions.
   */
  hostPending?: PendingHostCall[];
}

export interface PendingWrite {
  toolCallId: string;
  name: string;
  args: unknown;
  blockId: string;
  confirmBlockId: string;
  /**
   * The tool's schema fingerprint when the card was shown (`toolSchemaHash`): an approval after the
   * tool changed or disappeared is refused. Absent in checkpoints of older versions.
   */
  schema?: string;
  /** The policies' decision, for the audit entry written once the call ends. */
  audit?: PendingAudit;
}

/** A host tool call waiting for its result: its tool block stays `pending` meanwhile. */
export interface PendingHostCall {
  toolCallId: string;
  name: string;
  args: unknown;
  blockId: string;
  audit?: PendingAudit;
}

/** Whether a paused checkpoint waits for host tool results (and no longer for decisions). */
export function waitsForToolResults(checkpoint: AgentCheckpoint): boolean {
  return checkpoint.pending.length === 0 && (checkpoint.hostPending?.length ?? 0) > 0;
}
