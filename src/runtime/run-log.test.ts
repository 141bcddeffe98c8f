import { describe, expect, it } from 'vitest';
import {
  createMessageState,
  type LoggedRunEvent,
  type Message,
  reduceAll,
  toMessage,
} from '../protocol/index.ts';
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
