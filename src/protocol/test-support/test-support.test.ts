import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LoggedRunEvent, RunEventSchema } from '../run-event.ts';
import { arbitraryRunEvents, createEventFactory, deepFreeze, seedCancelOrderEvents } from './index.ts';

/** The generator's own contract, checked structurally (independently of `reduce`). */
function checkLogShape(events: readonly LoggedRunEvent[]): void {
  expect(events[0]?.type).toBe('run.started');
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const runIds = new Set(events.map((event) => event.runId));
  expect(runIds.size).toBe(1);
  const started = new Set<string>();
  const ended = new Set<string>();
  const toolCalls = new Set<string>();
  let paused = false;
  let previousAt = -1;
  for (const [index, event] of events.entries()) {
    expect(event.at).toBeGreaterThanOrEqual(previousAt);
    previousAt = event.at;
    if (event.type === 'run.started') expect(index).toBe(0);
    if (event.type === 'run.finished') expect(index).toBe(events.length - 1);
    if (event.type === 'run.paused') {
      expect(paused).toBe(false);
      paused = true;
      for (const call of event.pending) expect(toolCalls.has(call.toolCallId)).toBe(true);
    }
    if (event.type === 'run.resumed') {
      expect(paused).toBe(true);
      paused = false;
    }
    if (event.type === 'block.started') {
      expect(started.has(event.blockId)).toBe(false);
      started.add(event.blockId);
      if (event.kind === 'tool') {
        expect(toolCalls.has(event.toolCallId)).toBe(false);
        toolCalls.add(event.toolCallId);
      }
      if (event.kind === 'confirm') expect(toolCalls.has(event.toolCallId)).toBe(true);
    }
    if (event.type === 'block.delta' || event.type === 'block.updated' || event.type === 'block.ended') {
      expect(started.has(event.blockId)).toBe(true);
      expect(ended.has(event.blockId)).toBe(false);
    }
    if (event.type === 'block.ended') ended.add(event.blockId);
  }
}

describe('arbitraryRunEvents', () => {
  it('generates only events that pass RunEventSchema.parse, unchanged by parsing', () => {
    fc.assert(
      fc.property(arbitraryRunEvents(), (events) => {
        for (const event of events) expect(RunEventSchema.parse(event)).toStrictEqual(event);
      }),
      { numRuns: 300 },
    );
  });

  it('generates one run: run.started first, seq 1..n, each block ended at most once, nothing after', () => {
    fc.assert(fc.property(arbitraryRunEvents(), checkLogShape), { numRuns: 300 });
  });

  it('covers every kind of event over a few runs', () => {
    const seen = new Set<string>();
    for (const events of fc.sample(arbitraryRunEvents(), { numRuns: 200, seed: 2 })) {
      for (const event of events) {
        seen.add(
          event.type === 'block.started' || event.type === 'block.updated'
            ? `${event.type}:${event.kind}`
            : event.type,
        );
        if (event.type === 'block.ended' && event.status !== undefined)
          seen.add(`block.ended:${event.status}`);
      }
    }
    expect([...seen].sort()).toEqual(
      [
        'run.started',
        'block.started:reasoning',
        'block.started:answer',
        'block.started:error',
        'block.started:tool',
        'block.started:confirm',
        'block.delta',
        'block.updated:tool',
        'block.updated:confirm',
        'block.ended',
        'block.ended:done',
        'block.ended:cancelled',
        'block.ended:interrupted',
        'run.hint',
        'run.paused',
        'run.resumed',
        'step.finished',
        'run.finished',
      ].sort(),
    );
  });
});

describe('seedCancelOrderEvents', () => {
  it('is a valid log: every event passes the schema, seq 1..n, then done', () => {
    const events = seedCancelOrderEvents();
    const last = events.at(-1);
    expect(last?.type).toBe('done');
    const logged = events.filter((event): event is LoggedRunEvent => event.type !== 'done');
    expect(logged).toHaveLength(events.length - 1);
    for (const event of events) expect(RunEventSchema.parse(event)).toStrictEqual(event);
    checkLogShape(logged);
  });

  it('takes about 3.7 s from the first to the last event, and the first answer 134 ms', () => {
    const events = seedCancelOrderEvents();
    const first = events[0];
    const last = events.at(-1);
    expect(first && last ? last.at - first.at : null).toBe(3_700);
    const answerEnd = events.find((event) => event.type === 'block.ended' && event.blockId === 'b2');
    expect(answerEnd).toMatchObject({ durationMs: 134 });
  });
});

describe('createEventFactory', () => {
  it('numbers events from 1, moves the clock by stepMs and tick(), and times blocks', () => {
    const f = createEventFactory('r1', { startAt: 1_000, stepMs: 5 });
    expect(f.runStarted()).toStrictEqual({
      type: 'run.started',
      runId: 'r1',
      seq: 1,
      at: 1_000,
      conversationId: 'conv_r1',
      messageId: 'msg_r1',
    });
    expect(f.textStarted('b1', 'answer')).toStrictEqual({
      type: 'block.started',
      runId: 'r1',
      seq: 2,
      at: 1_005,
      blockId: 'b1',
      kind: 'answer',
    });
    f.tick(100);
    expect(f.delta('b1', '你好')).toMatchObject({ seq: 3, at: 1_110 });
    expect(f.ended('b1')).toStrictEqual({
      type: 'block.ended',
      runId: 'r1',
      seq: 4,
      at: 1_115,
      blockId: 'b1',
      endedAt: 1_115,
      durationMs: 110,
    });
    f.skip(2);
    expect(f.hint('x', 'y').seq).toBe(7);
    expect(f.done()).toStrictEqual({ type: 'done', runId: 'r1', at: 1_120 });
    expect(f.seq).toBe(7);
  });
});

describe('deepFreeze', () => {
  it('freezes nested objects and arrays', () => {
    const value = deepFreeze({ a: [{ b: 1 }] });
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a[0])).toBe(true);
    expect(() => {
      (value.a as { b: number }[]).push({ b: 2 });
    }).toThrow(TypeError);
  });
});
