import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createMessageState,
  fromMessage,
  type Message,
  MessageSchema,
  type MessageState,
  toMessage,
} from './message.ts';
import { reduce, reduceAll } from './reduce.ts';
import { type LoggedRunEvent, type RunEvent, RunEventSchema, type RunSnapshotEvent } from './run-event.ts';
import { arbitraryRunEvents } from './test-support/index.ts';
import { addTokenUsage, type TokenUsage } from './token-usage.ts';

const NUM_RUNS = 200;
const fresh = () => createMessageState();

/** states[k] = reduce of the first k events; reduce is pure, so building them incrementally is exact. */
function prefixStates(events: readonly LoggedRunEvent[]): MessageState[] {
  const states = [fresh()];
  for (const event of events) states.push(reduce(states.at(-1) ?? fresh(), event));
  return states;
}

/** What a server sends when it cannot replay: the message as of the k-th event, at that event's seq. */
function snapshotAt(events: readonly LoggedRunEvent[], k: number, message: Message): RunSnapshotEvent {
  const last = events[k - 1];
  if (last === undefined) throw new Error(`no event ${k}`);
  return { type: 'run.snapshot', runId: last.runId, seq: last.seq, at: last.at, message };
}

/**
 * `toStrictEqual`, with a fast path: the loops below compare thousands of messages per run, and
 * Node's strict deep equality (prototypes and `undefined` keys included) is much cheaper than
 * building an assertion; a difference still fails through `expect` with a readable diff.
 */
function expectSame(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toStrictEqual(expected);
}

/** Through the wire: JSON text, then the schema every reader applies. */
function overTheWire(event: RunEvent): RunEvent {
  return RunEventSchema.parse(JSON.parse(JSON.stringify(event)));
}

describe('reduce properties over random valid event logs', () => {
  it('(a) reduce(all) = reduce(snapshot at k, rest) for every k (and from the persisted message)', () => {
    fc.assert(
      fc.property(arbitraryRunEvents(), (events) => {
        const states = prefixStates(events);
        const live = toMessage(states[events.length] ?? fresh());
        for (let k = 1; k <= events.length; k += 1) {
          const message = toMessage(states[k] ?? fresh());
          const rest = events.slice(k);
          const snapshot = snapshotAt(events, k, message);
          expectSame(toMessage(reduceAll(reduce(fresh(), snapshot), rest)), live);
          // A page refresh: the persisted message, then the events after its lastSeq.
          expectSame(toMessage(reduceAll(fromMessage(message), rest)), live);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('(a) a snapshot also replaces a reader that is behind, and what it had seen is irrelevant', () => {
    fc.assert(
      fc.property(
        arbitraryRunEvents().filter((events) => events.length >= 2),
        fc.nat(),
        fc.nat(),
        (events, a, b) => {
          const states = prefixStates(events);
          // The reader saw j events, the server's snapshot covers k > j.
          const k = 2 + (a % (events.length - 1));
          const j = b % k;
          const reader = states[j] ?? fresh();
          const snapshot = snapshotAt(events, k, toMessage(states[k] ?? fresh()));
          const resumed = reduceAll(reduce(reader, snapshot), events.slice(k));
          expect(toMessage(resumed)).toStrictEqual(toMessage(states[events.length] ?? fresh()));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('(b) replaying any prefix twice, or the whole log twice, changes nothing', () => {
    fc.assert(
      fc.property(arbitraryRunEvents(), (events) => {
        const once = reduceAll(fresh(), events);
        expect(reduceAll(once, events)).toBe(once);
        expect(reduceAll(fresh(), [...events, ...events])).toStrictEqual(once);
        for (let k = 0; k <= events.length; k += 1) {
          const prefix = events.slice(0, k);
          expectSame(reduceAll(fresh(), [...prefix, ...prefix, ...events.slice(k)]), once);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('(b) at-least-once delivery (any event repeated any time after it was first seen) changes nothing', () => {
    fc.assert(
      fc.property(
        arbitraryRunEvents(),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 20 }),
        (events, repeats) => {
          const delivered: LoggedRunEvent[] = [...events];
          for (const [at, which] of repeats) {
            // Insert a copy of an event anywhere after its first delivery.
            const copy = events[which % events.length];
            if (copy === undefined) continue;
            const first = delivered.indexOf(copy);
            delivered.splice(first + 1 + (at % (delivered.length - first)), 0, copy);
          }
          expect(reduceAll(fresh(), delivered)).toStrictEqual(reduceAll(fresh(), events));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('(c) a valid log gives no anomalies, at any point', () => {
    fc.assert(
      fc.property(arbitraryRunEvents(), (events) => {
        for (const state of prefixStates(events)) expect(state.anomalies).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('(d) every snapshot message is valid wire data and survives JSON unchanged', () => {
    fc.assert(
      fc.property(arbitraryRunEvents(), (events) => {
        const states = prefixStates(events);
        for (let k = 1; k <= events.length; k += 1) {
          const message = toMessage(states[k] ?? fresh());
          expectSame(MessageSchema.parse(message), message);
          expectSame(JSON.parse(JSON.stringify(message)), message);
          // The whole run.snapshot event arrives as it left, so (a) holds over the wire as well.
          const snapshot = snapshotAt(events, k, message);
          expectSame(overTheWire(snapshot), snapshot);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('(e) the message agrees with a direct reading of the log', () => {
    fc.assert(
      fc.property(arbitraryRunEvents(), (events) => {
        const state = reduceAll(fresh(), events);
        const started = events.filter((event) => event.type === 'block.started');
        expect(state.blocks.map((block) => [block.blockId, block.kind])).toEqual(
          started.map((event) => [event.blockId, event.kind]),
        );
        for (const block of state.blocks) {
          const deltas = events
            .filter((event) => event.type === 'block.delta' && event.blockId === block.blockId)
            .map((event) => (event.type === 'block.delta' ? event.text : ''))
            .join('');
          const end = events.find((event) => event.type === 'block.ended' && event.blockId === block.blockId);
          expect(block.endedAt).toBe(end?.at ?? null);
          if (block.kind === 'tool') expect(block.argsText).toBe(deltas);
          else if (block.kind !== 'confirm') {
            expect(block.text).toBe(deltas);
            const endStatus = end?.type === 'block.ended' ? (end.status ?? 'done') : 'streaming';
            expect(block.status).toBe(endStatus);
          }
        }
        const last = events.at(-1);
        const finished = last?.type === 'run.finished' ? last : undefined;
        expect(state.status).toBe(
          finished?.status ??
            (events.filter((event) => event.type === 'run.paused').length >
            events.filter((event) => event.type === 'run.resumed').length
              ? 'paused'
              : 'running'),
        );
        const lastPauseOrResume = events
          .filter((event) => event.type === 'run.paused' || event.type === 'run.resumed')
          .at(-1);
        expect(state.pause).toEqual(
          finished === undefined && lastPauseOrResume?.type === 'run.paused'
            ? { reason: lastPauseOrResume.reason, pending: lastPauseOrResume.pending }
            : null,
        );
        expect(state.hint).toEqual(
          finished === undefined
            ? (events
                .filter((event) => event.type === 'run.hint')
                .map((event) => ({ code: event.code, text: event.text, at: event.at }))
                .at(-1) ?? null)
            : null,
        );
        // Usage is the sum of the steps that reported it, and absent when none did.
        const reported = events.flatMap((event) =>
          event.type === 'step.finished' && event.usage !== undefined ? [event.usage] : [],
        );
        expect(state.usage).toEqual(
          reported.reduce<TokenUsage | undefined>(addTokenUsage, undefined) ?? null,
        );
        if (reported.length > 0) {
          const sum = (field: 'inputTokens' | 'outputTokens') =>
            reported.reduce((total, usage) => total + usage[field], 0);
          expect([state.usage?.inputTokens, state.usage?.outputTokens]).toEqual([
            sum('inputTokens'),
            sum('outputTokens'),
          ]);
        }
        expect(state.lastSeq).toBe(events.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
