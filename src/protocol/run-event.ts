import { z } from 'zod';
import {
  ConfirmBlockStatusSchema,
  ConfirmDecisionSchema,
  ConfirmDetailSchema,
  ErrorInfoSchema,
  TextBlockKindSchema,
  TextBlockStatusSchema,
  TimestampSchema,
  ToolBlockStatusSchema,
} from './block.ts';
import { MessageSchema } from './message.ts';
import { TokenUsageSchema } from './token-usage.ts';

/**
 * Every event of a run's log carries `type`, `runId`, `seq` and `at`. `seq` starts at 1, grows by one
 * per logged event, and doubles as the SSE `id:`, so `Last-Event-ID` names a position in the log.
 */
const logged = {
  runId: z.string().min(1),
  seq: z.number().int().positive(),
  at: TimestampSchema,
};

export const RunStartedEventSchema = z.object({
  type: z.literal('run.started'),
  ...logged,
  conversationId: z.string().min(1),
  messageId: z.string().min(1),
  /** The trace id the run was started under (`traceparent`, `x-request-id`), for logs and audits. */
  traceId: z.string().min(1).max(200).optional(),
});
export type RunStartedEvent = z.infer<typeof RunStartedEventSchema>;

export const TextBlockStartedEventSchema = z.object({
  type: z.literal('block.started'),
  ...logged,
  blockId: z.string().min(1),
  kind: TextBlockKindSchema,
});

export const ToolBlockStartedEventSchema = z.object({
  type: z.literal('block.started'),
  ...logged,
  blockId: z.string().min(1),
  kind: z.literal('tool'),
  toolCallId: z.string().min(1),
  name: z.string().min(1),
  title: z.string(),
  /** Present when the arguments are known up front (not streamed). */
  args: z.unknown().optional(),
});

export const ConfirmBlockStartedEventSchema = z.object({
  type: z.literal('block.started'),
  ...logged,
  blockId: z.string().min(1),
  kind: z.literal('confirm'),
  toolCallId: z.string().min(1),
  title: z.string(),
  description: z.string(),
  details: z.array(ConfirmDetailSchema),
});

export const BlockStartedEventSchema = z.discriminatedUnion('kind', [
  TextBlockStartedEventSchema,
  ToolBlockStartedEventSchema,
  ConfirmBlockStartedEventSchema,
]);
export type BlockStartedEvent = z.infer<typeof BlockStartedEventSchema>;

/** Text for a reasoning/answer/error block, or argument text for a tool block. */
export const BlockDeltaEventSchema = z.object({
  type: z.literal('block.delta'),
  ...logged,
  blockId: z.string().min(1),
  text: z.string(),
});
export type BlockDeltaEvent = z.infer<typeof BlockDeltaEventSchema>;

/** A tool block changes in place; it is addressed by `toolCallId`, so N updates still give one block. */
export const ToolBlockUpdatedEventSchema = z.object({
  type: z.literal('block.updated'),
  ...logged,
  blockId: z.string().min(1),
  kind: z.literal('tool'),
  toolCallId: z.string().min(1),
  status: ToolBlockStatusSchema.optional(),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  error: ErrorInfoSchema.optional(),
});

export const ConfirmBlockUpdatedEventSchema = z.object({
  type: z.literal('block.updated'),
  ...logged,
  blockId: z.string().min(1),
  kind: z.literal('confirm'),
  status: ConfirmBlockStatusSchema,
  decision: ConfirmDecisionSchema.optional(),
});

export const BlockUpdatedEventSchema = z.discriminatedUnion('kind', [
  ToolBlockUpdatedEventSchema,
  ConfirmBlockUpdatedEventSchema,
]);
export type BlockUpdatedEvent = z.infer<typeof BlockUpdatedEventSchema>;

/**
 * A block closes. `status` is the final status of a text block (`done` unless it was cut short);
 * tool and confirm blocks reach their final status through `block.updated` and may omit it.
 * `streaming` is not a final status: an ended block that still says `streaming` would render as
 * live forever after a refresh, so it is refused here.
 */
export const BlockEndedEventSchema = z.object({
  type: z.literal('block.ended'),
  ...logged,
  blockId: z.string().min(1),
  endedAt: TimestampSchema,
  durationMs: z.number().nonnegative(),
  status: TextBlockStatusSchema.exclude(['streaming']).optional(),
});
export type BlockEndedEvent = z.infer<typeof BlockEndedEventSchema>;

/** A transient notice for the live view only; it is never persisted with the message. */
export const RunHintEventSchema = z.object({
  type: z.literal('run.hint'),
  ...logged,
  code: z.string().min(1),
  text: z.string(),
});
export type RunHintEvent = z.infer<typeof RunHintEventSchema>;

/**
 * The whole message as of `seq`. Sent instead of a replay when the log no longer holds the events a
 * resuming client missed; `seq` is the last logged event the snapshot covers, not a new log entry.
 */
export const RunSnapshotEventSchema = z.object({
  type: z.literal('run.snapshot'),
  ...logged,
  message: MessageSchema,
});
export type RunSnapshotEvent = z.infer<typeof RunSnapshotEventSchema>;

export const PendingCallSchema = z.object({
  toolCallId: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown().optional(),
});
export type PendingCall = z.infer<typeof PendingCallSchema>;

export const PauseReasonSchema = z.enum(['confirmation', 'tool_result']);
export type PauseReason = z.infer<typeof PauseReasonSchema>;

export const RunPausedEventSchema = z.object({
  type: z.literal('run.paused'),
  ...logged,
  reason: PauseReasonSchema,
  pending: z.array(PendingCallSchema).min(1),
});
export type RunPausedEvent = z.infer<typeof RunPausedEventSchema>;

export const RunResumedEventSchema = z.object({
  type: z.literal('run.resumed'),
  ...logged,
  /** What unblocked the run: a decision on a confirmation, or a submitted tool result. */
  reason: PauseReasonSchema,
  toolCallIds: z.array(z.string().min(1)),
});
export type RunResumedEvent = z.infer<typeof RunResumedEventSchema>;

export const StepFinishReasonSchema = z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'other']);
export type StepFinishReason = z.infer<typeof StepFinishReasonSchema>;

/**
 * One model call of the run ended (a run has one step per model call: each tool round, the final
 * answer). `step` counts from 1 across the whole run, pauses included; `usage` is what the provider
 * reported for this call, absent when it reported nothing.
 */
export const StepFinishedEventSchema = z.object({
  type: z.literal('step.finished'),
  ...logged,
  step: z.number().int().positive(),
  finishReason: StepFinishReasonSchema,
  usage: TokenUsageSchema.optional(),
});
export type StepFinishedEvent = z.infer<typeof StepFinishedEventSchema>;

export const FinishedRunStatusSchema = z.enum(['completed', 'cancelled', 'failed', 'interrupted']);
export type FinishedRunStatus = z.infer<typeof FinishedRunStatusSchema>;

export const RunFinishedEventSchema = z.object({
  type: z.literal('run.finished'),
  ...logged,
  status: FinishedRunStatusSchema,
  /** Why a run was cancelled or interrupted, e.g. `user_stop`, `server_restart`. */
  reason: z.string().optional(),
  error: ErrorInfoSchema.optional(),
  /** The sum of every step's usage, absent when no step reported any. */
  usage: TokenUsageSchema.optional(),
});
export type RunFinishedEvent = z.infer<typeof RunFinishedEventSchema>;

/** The events of a run's log, each with a `seq`. */
export const LoggedRunEventSchema = z.discriminatedUnion('type', [
  RunStartedEventSchema,
  BlockStartedEventSchema,
  BlockDeltaEventSchema,
  BlockUpdatedEventSchema,
  BlockEndedEventSchema,
  RunHintEventSchema,
  RunSnapshotEventSchema,
  RunPausedEventSchema,
  RunResumedEventSchema,
  StepFinishedEventSchema,
  RunFinishedEventSchema,
]);
export type LoggedRunEvent = z.infer<typeof LoggedRunEventSchema>;

/**
 * `done` ends one stream (one HTTP response). It is not part of the run's log: it has no `seq` and
 * no SSE `id`, because a run that paused will send more events on a later stream.
 */
export const DoneEventSchema = z.object({
  type: z.literal('done'),
  runId: z.string().min(1),
  at: TimestampSchema,
});
export type DoneEvent = z.infer<typeof DoneEventSchema>;

export const RunEventSchema = z.discriminatedUnion('type', [LoggedRunEventSchema, DoneEventSchema]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];

/** Every event type, in protocol order; tests use it to prove each type is handled everywhere. */
export const RUN_EVENT_TYPES = [
  'run.started',
  'block.started',
  'block.delta',
  'block.updated',
  'block.ended',
  'run.hint',
  'run.snapshot',
  'run.paused',
  'run.resumed',
  'step.finished',
  'run.finished',
  'done',
] as const satisfies readonly RunEventType[];

export function isLoggedRunEvent(event: RunEvent): event is LoggedRunEvent {
  return event.type !== 'done';
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A logged event before the log gives it its position: what a producer emits, what the log stamps. */
export type RunEventDraft = DistributiveOmit<
  Exclude<LoggedRunEvent, { type: 'run.snapshot' }>,
  'runId' | 'seq' | 'at'
>;
