import type {
  ConfirmBlockStatus,
  ConfirmDecision,
  ConfirmDetail,
  ErrorInfo,
  TextBlockKind,
  ToolBlockStatus,
} from '../block.ts';
import type { Message } from '../message.ts';
import type {
  BlockDeltaEvent,
  BlockEndedEvent,
  BlockStartedEvent,
  BlockUpdatedEvent,
  DoneEvent,
  FinishedRunStatus,
  PauseReason,
  PendingCall,
  RunFinishedEvent,
  RunHintEvent,
  RunPausedEvent,
  RunResumedEvent,
  RunSnapshotEvent,
  RunStartedEvent,
  StepFinishedEvent,
} from '../run-event.ts';

export type TextBlockStartedEvent = Extract<BlockStartedEvent, { kind: TextBlockKind }>;
export type ToolBlockStartedEvent = Extract<BlockStartedEvent, { kind: 'tool' }>;
export type ConfirmBlockStartedEvent = Extract<BlockStartedEvent, { kind: 'confirm' }>;
export type ToolBlockUpdatedEvent = Extract<BlockUpdatedEvent, { kind: 'tool' }>;
export type ConfirmBlockUpdatedEvent = Extract<BlockUpdatedEvent, { kind: 'confirm' }>;

export interface EventFactoryOptions {
  /** `at` of the first event, epoch milliseconds. */
  startAt?: number;
  /** How far the clock moves for each logged event (use `tick()` for longer pauses). */
  stepMs?: number;
}

/**
 * Builds the events of one run for tests: `seq` 1, 2, 3 … and a clock that only moves forward, so
 * tests state what happens and not the bookkeeping. `block.ended` gets `endedAt` = its `at` and
 * `durationMs` measured from that block's `block.started`.
 */
export interface EventFactory {
  readonly runId: string;
  /** The `seq` of the last logged event built (0 before the first). */
  readonly seq: number;
  /** The `at` of the last event built. */
  readonly now: number;
  /** Let time pass before the next event. */
  tick(ms: number): void;
  /** Leave a hole in the log: the next event's `seq` is `count` higher than it would have been. */
  skip(count?: number): void;

  runStarted(fields?: { conversationId?: string; messageId?: string }): RunStartedEvent;
  textStarted(blockId: string, kind: TextBlockKind): TextBlockStartedEvent;
  toolStarted(
    blockId: string,
    fields: { toolCallId: string; name: string; title?: string; args?: unknown },
  ): ToolBlockStartedEvent;
  confirmStarted(
    blockId: string,
    fields: { toolCallId: string; title: string; description: string; details?: ConfirmDetail[] },
  ): ConfirmBlockStartedEvent;
  delta(blockId: string, text: string): BlockDeltaEvent;
  toolUpdated(
    blockId: string,
    toolCallId: string,
    changes: { status?: ToolBlockStatus; args?: unknown; result?: unknown; error?: ErrorInfo },
  ): ToolBlockUpdatedEvent;
  confirmUpdated(
    blockId: string,
    status: ConfirmBlockStatus,
    decision?: ConfirmDecision,
  ): ConfirmBlockUpdatedEvent;
  ended(blockId: string, status?: BlockEndedEvent['status']): BlockEndedEvent;
  hint(code: string, text: string): RunHintEvent;
  paused(reason: PauseReason, pending: PendingCall[]): RunPausedEvent;
  resumed(reason: PauseReason, toolCallIds?: string[]): RunResumedEvent;
  stepFinished(
    step: number,
    fields?: { finishReason?: StepFinishedEvent['finishReason']; usage?: StepFinishedEvent['usage'] },
  ): StepFinishedEvent;
  finished(
    status: FinishedRunStatus,
    fields?: { reason?: string; error?: ErrorInfo; usage?: RunFinishedEvent['usage'] },
  ): RunFinishedEvent;
  /**
   * A `run.snapshot` of `message`. Not a new log entry: its `seq` is the last event it covers
   * (`message.lastSeq` unless given), and the factory's own `seq` does not move.
   */
  snapshot(message: Message, seq?: number): RunSnapshotEvent;
  /** The end of one stream: no `seq`, the factory's `seq` does not move. */
  done(): DoneEvent;
}

export function createEventFactory(runId: string, options: EventFactoryOptions = {}): EventFactory {
  const stepMs = options.stepMs ?? 10;
  let seq = 0;
  let now = (options.startAt ?? 1_750_000_000_000) - stepMs;
  const startedAt = new Map<string, number>();

  const stamp = () => {
    seq += 1;
    now += stepMs;
    return { runId, seq, at: now };
  };

  return {
    runId,
    get seq() {
      return seq;
    },
    get now() {
      return now;
    },
    tick(ms) {
      now += ms;
    },
    skip(count = 1) {
      seq += count;
    },
    runStarted(fields = {}) {
      return {
        type: 'run.started',
        ...stamp(),
        conversationId: fields.conversationId ?? `conv_${runId}`,
        messageId: fields.messageId ?? `msg_${runId}`,
      };
    },
    textStarted(blockId, kind) {
      const event: TextBlockStartedEvent = { type: 'block.started', ...stamp(), blockId, kind };
      startedAt.set(blockId, event.at);
      return event;
    },
    toolStarted(blockId, fields) {
      const event: ToolBlockStartedEvent = {
        type: 'block.started',
        ...stamp(),
        blockId,
        kind: 'tool',
        toolCallId: fields.toolCallId,
        name: fields.name,
        title: fields.title ?? fields.name,
        ...(fields.args !== undefined ? { args: fields.args } : {}),
      };
      startedAt.set(blockId, event.at);
      return event;
    },
    confirmStarted(blockId, fields) {
      const event: ConfirmBlockStartedEvent = {
        type: 'block.started',
        ...stamp(),
        blockId,
        kind: 'confirm',
        toolCallId: fields.toolCallId,
        title: fields.title,
        description: fields.description,
        details: fields.details ?? [],
      };
      startedAt.set(blockId, event.at);
      return event;
    },
    delta(blockId, text) {
      return { type: 'block.delta', ...stamp(), blockId, text };
    },
    toolUpdated(blockId, toolCallId, changes) {
      // Only the keys given: an absent key means "unchanged", and JSON drops `undefined` anyway.
      const event: ToolBlockUpdatedEvent = {
        type: 'block.updated',
        ...stamp(),
        blockId,
        kind: 'tool',
        toolCallId,
      };
      if (changes.status !== undefined) event.status = changes.status;
      if (changes.args !== undefined) event.args = changes.args;
      if (changes.result !== undefined) event.result = changes.result;
      if (changes.error !== undefined) event.error = changes.error;
      return event;
    },
    confirmUpdated(blockId, status, decision) {
      return {
        type: 'block.updated',
        ...stamp(),
        blockId,
        kind: 'confirm',
        status,
        ...(decision !== undefined ? { decision } : {}),
      };
    },
    ended(blockId, status) {
      const stamped = stamp();
      const durationMs = stamped.at - (startedAt.get(blockId) ?? stamped.at);
      return {
        type: 'block.ended',
        ...stamped,
        blockId,
        endedAt: stamped.at,
        durationMs,
        ...(status !== undefined ? { status } : {}),
      };
    },
    hint(code, text) {
      return { type: 'run.hint', ...stamp(), code, text };
    },
    paused(reason, pending) {
      return { type: 'run.paused', ...stamp(), reason, pending };
    },
    resumed(reason, toolCallIds = []) {
      return { type: 'run.resumed', ...stamp(), reason, toolCallIds };
    },
    stepFinished(step, fields = {}) {
      return {
        type: 'step.finished',
        ...stamp(),
        step,
        finishReason: fields.finishReason ?? 'stop',
        ...(fields.usage !== undefined ? { usage: fields.usage } : {}),
      };
    },
    finished(status, fields = {}) {
      return {
        type: 'run.finished',
        ...stamp(),
        status,
        ...(fields.reason !== undefined ? { reason: fields.reason } : {}),
        ...(fields.error !== undefined ? { error: fields.error } : {}),
        ...(fields.usage !== undefined ? { usage: fields.usage } : {}),
      };
    },
    snapshot(message, snapshotSeq = message.lastSeq) {
      return { type: 'run.snapshot', runId, seq: snapshotSeq, at: now, message };
    },
    done() {
      return { type: 'done', runId, at: now };
    },
  };
}
