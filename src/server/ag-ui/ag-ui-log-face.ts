import type { LoggedRunEvent, RunSnapshotEvent } from '../../protocol/index.ts';
import {
  type LogFace,
  type LogFaceDefinition,
  type LogFaceMapper,
  type LogFrame,
  MADE_ON_READ,
  type RunLog,
} from '../../runtime/index.ts';
import { encodeUtf8 } from '../encode-utf8.ts';
import { type AgUiEvent, AgUiEventMapper } from './ag-ui-event-mapper.ts';
import type { AgUiTerminal } from './ag-ui-terminal.ts';

/**
 * AG-UI events as SSE frames: `data:` with the event's JSON (what `@ag-ui/client` parses). The last
 * event a native event became carries that event's seq as `id:`, so `Last-Event-ID: n` means "I have
 * every AG-UI event of the native events up to n", also when the connection broke amid a group.
 */
export function encodeAgUiEvents(events: readonly AgUiEvent[], seq: number | undefined): string {
  let text = '';
  for (let index = 0; index < events.length; index += 1) {
    const id = seq !== undefined && index === events.length - 1 ? `id: ${seq}\n` : '';
    text += `${id}data: ${JSON.stringify(events[index])}\n\n`;
  }
  return text;
}

/**
 * The AG-UI face of a log: one `AgUiEventMapper` per log folds the run once, as its events are
 * appended, and each native event's AG-UI frames are kept beside it; text deltas (most of a run) are
 * made when read from their block's message id, like the native face's. The events that end a
 * stretch have no frame of their own here: a stream writes their `RUN_FINISHED`/`RUN_ERROR` with its
 * AG-UI ids (`agUiStreamFace`).
 */
export class AgUiFaceMapper implements LogFaceMapper {
  readonly events = new AgUiEventMapper();

  map(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null | typeof MADE_ON_READ {
    const mapped = this.events.push(event);
    if (mapped.length === 0) return null;
    if (
      event.type === 'block.delta' &&
      mapped.length === 1 &&
      this.events.textTarget(event.blockId) !== undefined
    )
      return MADE_ON_READ;
    const ends = this.events.terminalAt(event.seq) !== undefined;
    return encodeAgUiEvents(mapped, ends ? undefined : event.seq);
  }

  frameOf(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null {
    if (event.type !== 'block.delta' || event.text === '') return null;
    const target = this.events.textTarget(event.blockId);
    if (target === undefined) return null;
    return encodeAgUiEvents(
      [{ type: target.type, messageId: target.messageId, delta: event.text, timestamp: event.at }],
      event.seq,
    );
  }
}

const AG_UI_LOG_FACE: LogFaceDefinition<AgUiFaceMapper> = {
  key: 'ag-ui-sse',
  create: () => new AgUiFaceMapper(),
  // A face created where the log no longer holds seq 1 begins from a snapshot of the message: the
  // mapper then knows every block (which tool calls are the client's, which are already closed).
  fromStart: true,
};

/** The log's AG-UI face: created on first use, then fed every event once. */
export function agUiLogFace(log: RunLog): LogFace<AgUiFaceMapper> {
  return log.face(AG_UI_LOG_FACE);
}

/** The AG-UI ids one stream answers with, and the client's state it reports back. */
export interface AgUiStreamContext {
  threadId: string;
  runId: string;
  /** `RunAgentInput.state`: the state snapshot keeps it and adds runstream's own key. */
  clientState?: unknown;
}

/** `RUN_STARTED`, first on every stream, naming runstream's run so a client can stop it. */
export function runStartedEvent(log: RunLog, context: AgUiStreamContext): AgUiEvent {
  const { runId, conversationId, messageId } = log.state;
  return {
    type: 'RUN_STARTED',
    threadId: context.threadId,
    runId: context.runId,
    metadata: { runstream: { runId: runId ?? log.runId, conversationId, messageId } },
  };
}

/**
 * The events that end one AG-UI run: the agent state (the client's, with runstream's key, when it is
 * an object), then `RUN_FINISHED` with its outcome, or `RUN_ERROR`.
 */
export function terminalEvents(terminal: AgUiTerminal, context: AgUiStreamContext): AgUiEvent[] {
  const events: AgUiEvent[] = [];
  const { clientState } = context;
  if (clientState === undefined || isPlainObject(clientState))
    events.push({
      type: 'STATE_SNAPSHOT',
      snapshot: { ...(clientState ?? {}), runstream: terminal.state },
    });
  const ids = { threadId: context.threadId, runId: context.runId };
  const usage = terminal.usage === undefined ? {} : { usage: [terminal.usage] };
  switch (terminal.outcome) {
    case 'success':
      events.push({
        type: 'RUN_FINISHED',
        ...ids,
        outcome:
          terminal.pendingToolCallIds.length > 0
            ? { type: 'success', pendingToolCallIds: terminal.pendingToolCallIds }
            : { type: 'success' },
        ...usage,
      });
      break;
    case 'interrupt':
      events.push({
        type: 'RUN_FINISHED',
        ...ids,
        outcome: { type: 'interrupt', interrupts: terminal.interrupts },
        ...usage,
      });
      break;
    case 'cancelled':
      events.push({
        type: 'RUN_FINISHED',
        ...ids,
        outcome: { type: 'cancelled' },
        metadata: { runstream: terminal.state },
        ...usage,
      });
      break;
    case 'error':
      events.push({ type: 'RUN_ERROR', message: terminal.message, code: terminal.code, ...usage });
      break;
  }
  return events;
}

/**
 * The face one stream reads: the log's frames, and at a stretch end the frames that end this stream's
 * AG-UI run, with its ids. Only those few frames are made per stream.
 */
export function agUiStreamFace(face: LogFace<AgUiFaceMapper>, context: AgUiStreamContext): LogFace {
  return {
    mapper: face.mapper,
    preamble: face.preamble,
    preambleSeq: face.preambleSeq,
    frameAt(seq) {
      const frame = face.frameAt(seq);
      if (frame === undefined) return undefined;
      const terminal = face.mapper.events.terminalAt(seq);
      if (terminal === undefined) return frame;
      const end = encodeAgUiEvents(terminalEvents(terminal, context), seq);
      if (frame === null) return end;
      return typeof frame === 'string' ? frame + end : concat(frame, encodeUtf8(end));
    },
  };
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(first.length + second.length);
  bytes.set(first, 0);
  bytes.set(second, first.length);
  return bytes;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
