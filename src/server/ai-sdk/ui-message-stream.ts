import { type LoggedRunEvent, type RunSnapshotEvent, SSE_CONTENT_TYPE } from '../../protocol/index.ts';
import {
  type LogFace,
  type LogFaceDefinition,
  type LogFaceMapper,
  type LogFrame,
  MADE_ON_READ,
  type RunLog,
} from '../../runtime/index.ts';
import { encodeUtf8 } from '../encode-utf8.ts';
import { endsStream, SSE_HEARTBEAT, type StreamLogOptions, streamLog } from '../stream-run.ts';
import { finishChunk, startChunk } from './ai-sdk-message-metadata.ts';
import { type UiMessageChunk, UiMessageChunkMapper } from './ui-message-chunk-mapper.ts';

/** The header by which the AI SDK's clients know a UI message stream (`UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADER = 'x-vercel-ai-ui-message-stream';
export const UI_MESSAGE_STREAM_VERSION = 'v1';

/** How a UI message stream ends, whatever came before: the AI SDK's terminator. */
const DONE = encodeUtf8('data: [DONE]\n\n');

/**
 * An event's chunks as SSE frames, `data: <json>` each; the last carries the event's position as its
 * `id:` (see `positionId`), so `Last-Event-ID` names a position in the run's log.
 */
export function encodeChunks(chunks: readonly UiMessageChunk[], position: string | null): string {
  let text = '';
  for (let index = 0; index < chunks.length; index += 1) {
    const id = position !== null && index === chunks.length - 1 ? `id: ${position}\n` : '';
    text += `${id}data: ${JSON.stringify(chunks[index])}\n\n`;
  }
  return text;
}

/**
 * The AI SDK face of a log: one `UiMessageChunkMapper` per log folds the run once, as its events are
 * appended. Deltas (most of a run) are made when read from the event and its block's chunk type;
 * the rest are kept encoded beside their events.
 */
class UiMessageFaceMapper implements LogFaceMapper {
  readonly chunks = new UiMessageChunkMapper();

  map(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null | typeof MADE_ON_READ {
    const mapped = this.chunks.push(event);
    if (event.type === 'block.delta') return mapped.length === 0 ? null : MADE_ON_READ;
    if (mapped.length === 0) return null;
    // A snapshot's frames stand for every event up to its seq: a reader may resume after it.
    return encodeChunks(mapped, positionId(event.runId, event.seq));
  }

  frameOf(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null {
    if (event.type !== 'block.delta') return null;
    const chunk = this.chunks.deltaChunk(event);
    return chunk === undefined ? null : encodeChunks([chunk], positionId(event.runId, event.seq));
  }
}

/**
 * The SSE id of a position in a run's log: `<runId>:<seq>`. The stream's URL names the chat, whose
 * runs each count from 1, so a bare seq kept from an earlier run (EventSource sends back the last
 * id it saw) would name a position in the next run and skip its start.
 */
export function positionId(runId: string, seq: number): string {
  return `${runId}:${seq}`;
}

/** A `Last-Event-ID`: `<runId>:<seq>` as the stream writes it, or a bare seq (the run under way). */
export function parsePositionId(value: string): { runId: string | null; seq: number } | undefined {
  const match = /^(?:([A-Za-z0-9_-]{1,100}):)?(\d{1,15})$/.exec(value);
  if (match === null) return undefined;
  return { runId: match[1] ?? null, seq: Number(match[2]) };
}

const UI_MESSAGE_FACE: LogFaceDefinition<UiMessageFaceMapper> = {
  key: 'ai-sdk-ui-message-stream',
  create: () => new UiMessageFaceMapper(),
  fromStart: true,
};

export function uiMessageFace(log: RunLog): LogFace<UiMessageFaceMapper> {
  return log.face(UI_MESSAGE_FACE);
}

/** Where a UI message stream of a run starts. */
export type UiMessageStreamStart =
  /** The whole run from its start: a new run, or a resume (`resumeStreamIsReplay`). */
  | { from: 'start' }
  /** After this native seq (`Last-Event-ID`): the frames after it, nothing before. */
  | { from: 'seq'; afterSeq: number }
  /** The continuation of a paused run after a decision or host results: `start`, then what follows `afterSeq`. */
  | { from: 'continuation'; afterSeq: number };

/**
 * A UI message stream of a run: `data: <chunk>` SSE frames, ending with `data: [DONE]` when the run
 * finishes or pauses. Disconnecting only stops the writing; the run goes on.
 */
export function streamUiMessages(
  log: RunLog,
  start: UiMessageStreamStart,
  options: StreamLogOptions = {},
): Response {
  const face = uiMessageFace(log);
  const head: Uint8Array[] = [];
  let afterSeq: number;
  // A reader behind where the face begins (its log lost the run's start before the face was made)
  // cannot be given what it lacks piece by piece: it gets the run from the start, whole.
  if (start.from === 'start' || start.afterSeq < face.preambleSeq) {
    if (face.preamble !== null)
      head.push(typeof face.preamble === 'string' ? encodeUtf8(face.preamble) : face.preamble);
    afterSeq = face.preambleSeq;
  } else if (start.from === 'continuation') {
    const { messageId, runId, conversationId, usage } = face.mapper.chunks.state;
    const chunks = [startChunk(messageId, runId, conversationId, usage)];
    // The answer left the run waiting (one of two cards): the log says nothing until the rest come,
    // so the stream says it itself, as at the pause, and `onFinish` sees the message still waits.
    if (log.paused && log.lastSeq === start.afterSeq) chunks.push(finishChunk('tool-calls', usage));
    head.push(encodeUtf8(encodeChunks(chunks, null)));
    afterSeq = start.afterSeq;
  } else afterSeq = start.afterSeq;
  return streamLog(
    {
      log,
      face,
      head,
      afterSeq,
      contentType: `${SSE_CONTENT_TYPE}; charset=utf-8`,
      end: DONE,
      heartbeat: SSE_HEARTBEAT,
    },
    {
      ...options,
      headers: { ...options.headers, [UI_MESSAGE_STREAM_HEADER]: UI_MESSAGE_STREAM_VERSION },
    },
  );
}

/** Whether a reader at `afterSeq` already has everything a run that ended or waits will ever send. */
export function caughtUp(log: RunLog, afterSeq: number): boolean {
  return endsStream(log) && afterSeq >= log.lastSeq;
}
