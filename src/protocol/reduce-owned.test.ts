import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMessageState, type MessageState } from './message.ts';
import { copyOwnedBlocks, reduce, reduceOwned } from './reduce.ts';
import type { LoggedRunEvent, RunEvent } from './run-event.ts';
import { arbitraryRunEvents } from './test-support/index.ts';

/** A copy no later in-place change reaches. */
function frozenCopy(state: MessageState): MessageState {
  return structuredClone(state);
}

/**
 * Feeds the same events to `reduce` and to `reduceOwned` and checks, after every event, that the
 * owned state equals the pure one. Also checks the pure side's previous state was never touched.
 */
function expectSameAsReduce(events: readonly RunEvent[]): void {
  let pure = createMessageState();
  let owned = createMessageState();
  for (const event of events) {
    const before = frozenCopy(pure);
    const next = reduce(pure, event);
    if (!isDeepStrictEqual(pure, before)) expect(pure).toStrictEqual(before);
    pure = next;
    owned = reduceOwned(owned, event);
    if (!isDeepStrictEqual(owned, pure)) expect(owned).toStrictEqual(pure);
  }
}

describe('reduceOwned: reduce in place for a state nobody else holds', () => {
  it('equals reduce after every event of random valid logs', () => {
    fc.assert(
      fc.property(arbitraryRunEvents({ maxSteps: 80 }), (events) => expectSameAsReduce(events)),
      { numRuns: 300 },
    );
  });

  it('equals reduce on logs with replays, gaps, strays of another run, misplaced events and events after the end', () => {
    const disturbed = arbitraryRunEvents({ maxSteps: 60 }).chain((events) =>
      fc
        .array(
          fc.record({
            at: fc.nat({ max: Math.max(0, events.length - 1) }),
            kind: fc.constantFrom('repeat', 'skip', 'stray', 'late'),
            pick: fc.nat({ max: Math.max(0, events.length - 1) }),
          }),
          { maxLength: 8 },
        )
        .chain((changes) => fc.tuple(fc.constant(changes), fc.boolean()))
        .map(([changes, renumber]) => {
          const out: LoggedRunEvent[] = [...events];
          for (const change of changes) {
            const picked = events[change.pick];
            if (picked === undefined) continue;
            if (change.kind === 'repeat') out.splice(change.at, 0, picked);
            else if (change.kind === 'skip') out.splice(change.at, 1);
            else if (change.kind === 'stray') out.splice(change.at, 0, { ...picked, runId: 'run_other' });
            else out.push({ ...picked, seq: (events.at(-1)?.seq ?? 0) + 1 + change.at });
          }
          // Renumbered, a repeated event is a new one in the wrong place (a delta for a closed
          // block, a second start): the anomalies reduce records, not replays it skips.
          return renumber ? out.map((event, index) => ({ ...event, seq: index + 1 })) : out;
        }),
    );
    fc.assert(
      fc.property(disturbed, (events) => expectSameAsReduce(events)),
      { numRuns: 300 },
    );
  });

  it('changes the state it is given for a delta; a copy of its blocks stays as it was', () => {
    const started = reduce(reduce(createMessageState(), runStarted()), answerStarted());
    const copy = copyOwnedBlocks(started.blocks);
    const owned = reduceOwned(started, delta(3, '你好'));
    expect(owned).toBe(started);
    expect(owned.blocks[0]).toMatchObject({ text: '你好' });
    expect(copy[0]).toMatchObject({ text: '' });
  });
});

function runStarted(): RunEvent {
  return { type: 'run.started', runId: 'run_1', seq: 1, at: 1, conversationId: 'conv_1', messageId: 'msg_1' };
}

function answerStarted(): RunEvent {
  return { type: 'block.started', runId: 'run_1', seq: 2, at: 2, blockId: 'b1', kind: 'answer' };
}

function delta(seq: number, text: string): RunEvent {
  return { type: 'block.delta', runId: 'run_1', seq, at: seq, blockId: 'b1', text };
}
