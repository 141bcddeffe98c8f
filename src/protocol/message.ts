import { z } from 'zod';
import { BlockSchema, ErrorInfoSchema, TimestampSchema } from './block.ts';
import { TokenUsageSchema } from './token-usage.ts';

export const MessageStatusSchema = z.enum([
  'idle',
  'running',
  'paused',
  'completed',
  'cancelled',
  'failed',
  'interrupted',
]);
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

export const MessagePauseSchema = z.object({
  reason: z.enum(['confirmation', 'tool_result']),
  pending: z.array(
    z.object({ toolCallId: z.string().min(1), name: z.string().min(1), args: z.unknown().optional() }),
  ),
});
export type MessagePause = z.infer<typeof MessagePauseSchema>;

/**
 * The persisted form of one assistant message: exactly what `reduce()` builds minus transient state.
 * The server stores it; `run.snapshot` carries it; a refreshed page renders it.
 */
export const MessageSchema = z.object({
  runId: z.string().min(1).nullable(),
  conversationId: z.string().min(1).nullable(),
  messageId: z.string().min(1).nullable(),
  status: MessageStatusSchema,
  blocks: z.array(BlockSchema),
  pause: MessagePauseSchema.nullable(),
  /** Why a run was cancelled or interrupted, e.g. `user_stop`. */
  finishReason: z.string().nullable(),
  error: ErrorInfoSchema.nullable(),
  startedAt: TimestampSchema.nullable(),
  endedAt: TimestampSchema.nullable(),
  /**
   * What the run's model calls cost so far, summed over its steps; `null` while no step reported
   * usage (never zeros for "unknown"). Messages stored before usage was recorded read as `null`.
   */
  usage: TokenUsageSchema.nullable().default(null),
  /** The `seq` of the last event applied; events at or below it are no-ops. */
  lastSeq: z.number().int().nonnegative(),
});
export type Message = z.infer<typeof MessageSchema>;

/** A hint shown while it is relevant; never persisted. */
export interface TransientHint {
  code: string;
  text: string;
  at: number;
}

/**
 * An event the reducer could not apply (for example a delta for a block that was never started).
 * Recorded instead of thrown so `reduce` stays total, and instead of dropped so it stays visible.
 */
export interface ReduceAnomaly {
  seq: number;
  type: string;
  code:
    | 'unknown_block'
    | 'duplicate_block'
    | 'block_closed'
    | 'wrong_block_kind'
    | 'run_mismatch'
    | 'seq_gap'
    | 'after_finish'
    | 'open_block_at_finish';
  message: string;
}

/** The reducer's state: the persisted message plus what only the live view needs. */
export interface MessageState extends Message {
  hint: TransientHint | null;
  anomalies: readonly ReduceAnomaly[];
}

export function createMessageState(): MessageState {
  return {
    runId: null,
    conversationId: null,
    messageId: null,
    status: 'idle',
    blocks: [],
    pause: null,
    finishReason: null,
    error: null,
    startedAt: null,
    endedAt: null,
    usage: null,
    lastSeq: 0,
    hint: null,
    anomalies: [],
  };
}

/** The part of the state that is persisted and sent in `run.snapshot`. */
export function toMessage(state: MessageState): Message {
  // `patchState` lists every field; a message is a state without what only the live view needs.
  const { hint: _hint, anomalies: _anomalies, ...message } = patchState(state, {});
  return message;
}

/** Rebuild reducer state from a persisted message (a page refresh, a snapshot). */
export function fromMessage(message: Message): MessageState {
  // `?? null`: a message stored before usage was recorded has no such field.
  return patchState(message as MessageState, { usage: message.usage ?? null, hint: null, anomalies: [] });
}

/**
 * A copy of a state with some fields changed, made as one object literal of every field in one order.
 * Every state then has one shape, which a spread does not promise: V8 may give a spread's copy a map of
 * its own, and code that reads states (a run log's, many times per event) then meets a map it has not
 * seen and deoptimises, run after run.
 */
export function patchState(state: MessageState, patch: Partial<MessageState>): MessageState {
  const next: MessageState = {
    runId: state.runId,
    conversationId: state.conversationId,
    messageId: state.messageId,
    status: state.status,
    blocks: state.blocks,
    pause: state.pause,
    finishReason: state.finishReason,
    error: state.error,
    startedAt: state.startedAt,
    endedAt: state.endedAt,
    usage: state.usage,
    lastSeq: state.lastSeq,
    hint: state.hint,
    anomalies: state.anomalies,
  };
  return Object.assign(next, patch);
}
