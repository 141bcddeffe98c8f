import { describe, expect, it } from 'vitest';
import { RunLog } from '../runtime/index.ts';
import { LogCursor } from './log-cursor.ts';
import { SSE_FACE } from './stream-run.ts';

const decoder = new TextDecoder();

function started(capacity?: number): RunLog {
  const log = new RunLog('run_1', capacity === undefined ? {} : { capacity });
  log.append({ type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' });
  log.append({ type: 'block.started', blockId: 'b1', kind: 'answer' });
  return log;
}

function deltas(log: RunLog, count: number): void {
  for (let index = 0; index < count; index += 1)
    log.append({ type: 'block.delta', blockId: 'b1', text: `${index},` });
}

/** The seqs in some SSE bytes, in order. */
function seqsOf(bytes: Uint8Array | null): number[] {
  if (bytes === null) return [];
  return [...decoder.decode(bytes).matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
}

function readAll(cursor: LogCursor, maxChars?: number): { seqs: number[]; writes: number } {
  const seqs: number[] = [];
  let writes = 0;
  for (let bytes = cursor.next(maxChars); bytes !== null; bytes = cursor.next(maxChars)) {
    writes += 1;
    seqs.push(...seqsOf(bytes));
  }
  return { seqs, writes };
}

describe('LogCursor', () => {
  it('writes everything after its seq in one write, then what comes, and holds nothing itself', () => {
    const log = started();
    deltas(log, 3);
    const cursor = new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 1 });
    expect(readAll(cursor)).toEqual({ seqs: [2, 3, 4, 5], writes: 1 });
    expect(cursor.caughtUp).toBe(true);
    deltas(log, 2);
    expect(cursor.lag).toBe(2);
    expect(readAll(cursor).seqs).toEqual([6, 7]);
  });

  it('gives readers at one position the same bytes, encoded once', () => {
    const log = started();
    const face = log.face(SSE_FACE);
    const readers = [0, 1, 2].map(() => new LogCursor({ log, face, afterSeq: 2 }));
    deltas(log, 5);
    const written = readers.map((reader) => reader.next());
    expect(written[1]).toBe(written[0]);
    expect(written[2]).toBe(written[0]);
    expect(seqsOf(written[0] ?? null)).toEqual([3, 4, 5, 6, 7]);
  });

  it('splits a long catch-up into writes of a bounded size', () => {
    const log = started();
    deltas(log, 200);
    const { seqs, writes } = readAll(new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 0 }), 2_000);
    expect(seqs).toEqual(Array.from({ length: 202 }, (_, index) => index + 1));
    expect(writes).toBeGreaterThan(5);
  });

  it('ends after a pause or finish that comes once it began, not at one it replays', () => {
    const log = started();
    log.append({ type: 'run.paused', reason: 'tool_result', pending: [] });
    log.append({ type: 'run.resumed', reason: 'tool_result', toolCallIds: [] });
    deltas(log, 1);
    const cursor = new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 0 });
    expect(readAll(cursor).seqs).toEqual([1, 2, 3, 4, 5]);
    expect(cursor.ended).toBe(false);
    log.append({ type: 'block.ended', blockId: 'b1', endedAt: 1, durationMs: 1 });
    log.append({ type: 'run.paused', reason: 'tool_result', pending: [] });
    log.append({ type: 'run.resumed', reason: 'tool_result', toolCallIds: [] });
    expect(readAll(cursor).seqs).toEqual([6, 7]);
    expect(cursor.ended).toBe(true);
    expect(cursor.next()).toBeNull();
  });

  it('ends at the run end for a reader that starts after the run finished', () => {
    const log = started();
    log.append({ type: 'block.ended', blockId: 'b1', endedAt: 1, durationMs: 1 });
    log.append({ type: 'run.finished', status: 'completed' });
    const behind = new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 2 });
    expect(readAll(behind).seqs).toEqual([3, 4]);
    expect(behind.ended).toBe(true);
    expect(new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 4 }).ended).toBe(true);
  });

  it('is lost once the ring no longer holds its next event', () => {
    const log = started(4);
    const cursor = new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 2 });
    deltas(log, 10);
    expect(cursor.lost).toBe(true);
    expect(cursor.next()).toBeNull();
  });

  it('ends for a reader ahead of the log once the log reaches the run end it already has', () => {
    // The reader read through the run's end (seq 4) on another instance; this copy is at seq 2.
    const log = started();
    const cursor = new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 4 });
    log.append({ type: 'block.ended', blockId: 'b1', endedAt: 1, durationMs: 1 });
    expect(cursor.next()).toBeNull();
    expect(cursor.ended).toBe(false);
    log.append({ type: 'run.finished', status: 'completed' });
    expect(cursor.next()).toBeNull();
    expect(cursor.ended).toBe(true);
  });

  it('waits, writing nothing, while the log is behind the seq it starts after', () => {
    const log = started();
    const cursor = new LogCursor({ log, face: log.face(SSE_FACE), afterSeq: 5 });
    deltas(log, 3);
    expect(cursor.next()).toBeNull();
    deltas(log, 1);
    expect(readAll(cursor).seqs).toEqual([6]);
  });
});
