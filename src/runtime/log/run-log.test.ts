import { describe, expect, it } from 'vitest';
import {
  createMessageState,
  type LoggedRunEvent,
  type Message,
  type RunSnapshotEvent,
  reduceAll,
  toMessage,
} from '../../protocol/index.ts';
import type { LogFrame } from './log-face.ts';
import { RunLog } from './run-log.ts';

function fill(log: RunLog, deltas: number): void {
  log.append({ type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' });
  log.append({ type: 'block.started', blockId: 'b1', kind: 'answer' });
  for (let index = 0; index < deltas; index += 1)
    log.append({ type: 'block.delta', blockId: 'b1', text: `${index},` });
}

describe('RunLog', () => {
  it('stamps seq 1, 2, 3 … and keeps the same state the client reduces', () => {
    const log = new RunLog('run_1', { now: () => 1000 });
    fill(log, 3);
    const events = log.since(0).events;
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events.every((event) => event.runId === 'run_1' && event.at === 1000)).toBe(true);
    expect(toMessage(log.state)).toEqual(toMessage(reduceAll(createMessageState(), events)));
  });

  it('appends a delta made whole exactly as it appends the same draft', () => {
    const logs = [new RunLog('run_1', { now: () => 1000 }), new RunLog('run_1', { now: () => 1000 })];
    const told: LoggedRunEvent[][] = [[], []];
    const mirrored: LoggedRunEvent[][] = [[], []];
    logs.forEach((log, index) => {
      fill(log, 1);
      log.subscribe((event) => told[index]?.push(event));
      log.own({ onAppend: (event) => mirrored[index]?.push(event) });
    });
    const [byDraft, whole] = logs as [RunLog, RunLog];
    const drafted = byDraft.append({ type: 'block.delta', blockId: 'b1', text: '订单' });
    const made = whole.appendDelta('b1', '订单');
    expect(made).toEqual(drafted);
    // The same text on the wire, key order included.
    expect(JSON.stringify(made)).toBe(JSON.stringify(drafted));
    expect(whole.state).toEqual(byDraft.state);
    expect(told[1]).toEqual(told[0]);
    expect(mirrored[1]).toEqual([made]);
  });

  it('replays from the buffer, and answers a resume from before it with a snapshot of everything', () => {
    const log = new RunLog('run_1', { capacity: 4 });
    fill(log, 8);
    expect(log.since(8).events.map((event) => event.seq)).toEqual([9, 10]);
    const replay = log.since(2);
    expect('snapshot' in replay && replay.snapshot.seq).toBe(10);
    expect('snapshot' in replay && replay.snapshot.message).toEqual(toMessage(log.state));
    expect(log.since(10).events).toEqual([]);
  });

  it('persists at block boundaries and terminal events, never per delta', () => {
    const saved: string[] = [];
    const log = new RunLog('run_1', {
      onBoundary: (_message: Message, event: LoggedRunEvent) => saved.push(event.type),
    });
    fill(log, 50);
    log.append({ type: 'run.hint', code: 'slow', text: '稍等' });
    log.append({ type: 'block.ended', blockId: 'b1', endedAt: 1, durationMs: 1 });
    log.append({ type: 'run.finished', status: 'completed' });
    expect(saved).toEqual(['run.started', 'block.started', 'block.ended', 'run.finished']);
    expect(log.finished).toBe(true);
  });

  it('continues a persisted message: seq goes on from its lastSeq', () => {
    const first = new RunLog('run_1');
    fill(first, 2);
    const resumed = new RunLog('run_1', { initial: toMessage(first.state) });
    const next = resumed.append({ type: 'block.delta', blockId: 'b1', text: 'more' });
    expect(next.seq).toBe(first.lastSeq + 1);
    expect(resumed.state.blocks[0]).toMatchObject({ text: '0,1,more' });
  });

  it('tells subscribers about each new event until they leave', () => {
    const log = new RunLog('run_1');
    const seen: number[] = [];
    const leave = log.subscribe((event) => seen.push(event.seq));
    fill(log, 1);
    leave();
    log.append({ type: 'block.delta', blockId: 'b1', text: 'x' });
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('RunLog ring', () => {
  it('keeps the newest `capacity` events however long the run, each at its seq', () => {
    const log = new RunLog('run_1', { capacity: 5 });
    fill(log, 20);
    expect(log.lastSeq).toBe(22);
    expect(log.oldestSeq).toBe(18);
    expect(log.eventAt(17)).toBeUndefined();
    expect(log.eventAt(18)?.seq).toBe(18);
    expect(log.eventAt(22)).toMatchObject({ seq: 22, text: '19,' });
    expect(log.eventAt(23)).toBeUndefined();
    expect(log.since(17).events.map((event) => event.seq)).toEqual([18, 19, 20, 21, 22]);
    expect('snapshot' in log.since(16)).toBe(true);
  });

  it('continues a persisted message with an empty ring from its lastSeq', () => {
    const first = new RunLog('run_1');
    fill(first, 3);
    const resumed = new RunLog('run_1', { initial: toMessage(first.state), capacity: 2 });
    expect(resumed.oldestSeq).toBe(6);
    expect(resumed.eventAt(5)).toBeUndefined();
    for (const text of ['a', 'b', 'c']) resumed.append({ type: 'block.delta', blockId: 'b1', text });
    expect(resumed.oldestSeq).toBe(7);
    expect(resumed.since(6).events.map((event) => event.seq)).toEqual([7, 8]);
  });

  it('hands out messages that later deltas leave as they were', () => {
    const saved: Message[] = [];
    const log = new RunLog('run_1', { onBoundary: (message) => saved.push(message) });
    fill(log, 2);
    const state = log.state;
    const snapshot = log.snapshot();
    log.append({ type: 'block.delta', blockId: 'b1', text: 'later' });
    expect(saved.at(-1)?.blocks[0]).toMatchObject({ text: '' });
    expect(state.blocks[0]).toMatchObject({ text: '0,1,' });
    expect(snapshot.message.blocks[0]).toMatchObject({ text: '0,1,' });
    expect(log.state.blocks[0]).toMatchObject({ text: '0,1,later' });
  });

  it('does not change the message it continues', () => {
    const first = new RunLog('run_1');
    fill(first, 1);
    const initial = toMessage(first.state);
    const copy = structuredClone(initial);
    const resumed = new RunLog('run_1', { initial });
    resumed.append({ type: 'block.delta', blockId: 'b1', text: 'more' });
    expect(initial).toEqual(copy);
  });
});

/** A frame as text: a kept face gives its UTF-8 bytes. */
function textOf(frame: LogFrame | null | undefined): string | null | undefined {
  return frame instanceof Uint8Array ? new TextDecoder().decode(frame) : frame;
}

describe('RunLog faces', () => {
  const counting = () => {
    const mapped: number[] = [];
    return {
      mapped,
      create: () => ({
        map: (event: LoggedRunEvent | RunSnapshotEvent) => {
          mapped.push(event.seq);
          return event.type === 'block.delta' ? `<${event.text}>` : null;
        },
      }),
    };
  };

  it('maps every event once, those before the face was asked for and those after, however many read', () => {
    const log = new RunLog('run_1');
    fill(log, 2);
    const face = counting();
    const first = log.face({ key: 'test', create: face.create });
    log.append({ type: 'block.delta', blockId: 'b1', text: 'x' });
    const second = log.face({ key: 'test', create: face.create });
    expect(second).toBe(first);
    expect(face.mapped).toEqual([1, 2, 3, 4, 5]);
    expect([1, 2, 3, 4, 5].map((seq) => textOf(first.frameAt(seq)))).toEqual([
      null,
      null,
      '<0,>',
      '<1,>',
      '<x>',
    ]);
    expect(first.frameAt(6)).toBeUndefined();
  });

  it('makes on-read frames only while the ring keeps their events; keeps mapped frames for good', () => {
    const log = new RunLog('run_1', { capacity: 3 });
    const ring = log.face({ key: 'ring', create: counting().create, onRead: true });
    const all = log.face({ key: 'all', create: counting().create });
    fill(log, 6);
    expect(ring.frameAt(5)).toBeUndefined();
    expect(ring.frameAt(8)).toBe('<5,>');
    expect(textOf(all.frameAt(3))).toBe('<0,>');
    expect(textOf(all.frameAt(8))).toBe('<5,>');
  });

  it('starts a face that needs the whole run from a snapshot when the ring no longer has seq 1', () => {
    const log = new RunLog('run_1', { capacity: 3 });
    fill(log, 6);
    const face = counting();
    const fromStart = log.face({ key: 'start', create: face.create, fromStart: true });
    expect(face.mapped).toEqual([8]);
    expect(fromStart.preambleSeq).toBe(8);
    log.append({ type: 'block.delta', blockId: 'b1', text: 'y' });
    expect(fromStart.frameAt(8)).toBeUndefined();
    expect(textOf(fromStart.frameAt(9))).toBe('<y>');
  });

  it('maps nothing ahead for an on-read face', () => {
    const log = new RunLog('run_1');
    const face = counting();
    const onRead = log.face({ key: 'read', create: face.create, onRead: true });
    fill(log, 2);
    expect(face.mapped).toEqual([]);
    expect(onRead.frameAt(4)).toBe('<1,>');
    expect(face.mapped).toEqual([4]);
  });
});
