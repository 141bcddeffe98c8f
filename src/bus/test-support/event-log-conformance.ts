import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoggedRunEvent } from '../../protocol/index.ts';
import { type EventLog, EventLogConflict, EventLogGap } from '../event-log.ts';

export interface EventLogFixture {
  log: EventLog;
  /** A second handle on the same log, as another instance has it (the same object in memory). */
  peer: EventLog;
  close(): Promise<void>;
}

export type EventLogFactory = (options: { capacity?: number; ttlMs?: number }) => Promise<EventLogFixture>;

let runCounter = 0;

/** A fresh run id per test, so implementations sharing a server never see each other's runs. */
export function freshRunId(): string {
  runCounter += 1;
  return `run_log${process.pid}x${runCounter}x${Math.random().toString(36).slice(2, 8)}`;
}

/** Events `from…to` of a run: started, an answer's deltas, and (when `finish`) its end. */
export function runEvents(
  runId: string,
  from: number,
  to: number,
  end?: 'finished' | 'paused',
): LoggedRunEvent[] {
  const events: LoggedRunEvent[] = [];
  for (let seq = from; seq <= to; seq += 1) {
    const at = 1_750_000_000_000 + seq;
    if (seq === to && end === 'finished')
      events.push({ type: 'run.finished', runId, seq, at, status: 'completed' } as LoggedRunEvent);
    else if (seq === to && end === 'paused')
      events.push({
        type: 'run.paused',
        runId,
        seq,
        at,
        reason: 'confirmation',
      } as unknown as LoggedRunEvent);
    else if (seq === 1)
      events.push({
        type: 'run.started',
        runId,
        seq,
        at,
        conversationId: 'conv_a',
        messageId: 'msg_a',
      } as LoggedRunEvent);
    else
      events.push({
        type: 'block.delta',
        runId,
        seq,
        at,
        blockId: 'blk_answer',
        text: `字${seq}`,
      } as LoggedRunEvent);
  }
  return events;
}

async function collect(iterable: AsyncIterable<LoggedRunEvent>): Promise<LoggedRunEvent[]> {
  const events: LoggedRunEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const seqs = (events: readonly LoggedRunEvent[]) => events.map((event) => event.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** What every `EventLog` must do, run against each implementation. */
export function describeEventLogConformance(
  name: string,
  create: EventLogFactory,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`${name} (EventLog conformance)`, () => {
    let fixture: EventLogFixture | undefined;
    const open = async (settings: { capacity?: number; ttlMs?: number } = {}) => {
      await fixture?.close();
      fixture = await create(settings);
      return fixture;
    };
    beforeEach(async () => {
      await open();
    });
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });
    const get = () => {
      if (fixture === undefined) throw new Error('no fixture');
      return fixture;
    };

    it('reads back what was appended, after any seq, and says when it holds everything', async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      expect(await log.read(runId, 0)).toEqual({ events: [], complete: false, lastSeq: null });
      await log.append(runId, runEvents(runId, 1, 3));
      await log.append(runId, runEvents(runId, 4, 6));
      const all = await peer.read(runId, 0);
      expect(all.events).toEqual(runEvents(runId, 1, 6));
      expect(all).toMatchObject({ complete: true, lastSeq: 6 });
      expect(seqs((await peer.read(runId, 4)).events)).toEqual([5, 6]);
      expect(await peer.read(runId, 6)).toEqual({ events: [], complete: true, lastSeq: 6 });
      expect(await peer.read(runId, 9)).toEqual({ events: [], complete: true, lastSeq: 6 });
    });

    it('refuses an append that does not continue the log, so two writers never both append seq n', async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 2));
      const repeat = await peer.append(runId, runEvents(runId, 2, 3)).catch((error: unknown) => error);
      expect(repeat).toBeInstanceOf(EventLogConflict);
      expect(repeat).toMatchObject({ expected: 2, lastSeq: 2 });
      await expect(peer.append(runId, runEvents(runId, 4, 4))).rejects.toBeInstanceOf(EventLogConflict);
      await expect(log.append(runId, [...runEvents(runId, 3, 3), ...runEvents(runId, 5, 5)])).rejects.toThrow(
        RangeError,
      );
      // Racing writers of seq 3: exactly one wins.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? log : peer).append(runId, runEvents(runId, 3, 4)),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(seqs((await log.read(runId, 0)).events)).toEqual([1, 2, 3, 4]);
    });

    it("checks only the order with check: 'follows', still refusing a seq the log holds", async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 2));
      await log.append(runId, runEvents(runId, 3, 4), { check: 'follows' });
      await expect(peer.append(runId, runEvents(runId, 4, 5), { check: 'follows' })).rejects.toBeInstanceOf(
        EventLogConflict,
      );
      await expect(peer.append(runId, runEvents(runId, 2, 2), { check: 'follows' })).rejects.toMatchObject({
        lastSeq: 4,
      });
      await log.append(runId, runEvents(runId, 5, 6), { check: 'follows' });
      expect(seqs((await peer.read(runId, 0)).events)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('accepts any first seq on an empty log: what came before is in the store', async () => {
      const { log } = get();
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 41, 42));
      expect(await log.read(runId, 40)).toMatchObject({ complete: true, lastSeq: 42 });
      // Before 41 the log knows nothing: not complete.
      expect(await log.read(runId, 10)).toMatchObject({ complete: false, lastSeq: 42 });
    });

    it('follows from a seq: the backlog, then live events, ending after run.finished', async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 3));
      const followed = collect(peer.follow(runId, 1));
      for (let seq = 4; seq <= 20; seq += 1) {
        await log.append(runId, runEvents(runId, seq, seq, seq === 20 ? 'finished' : undefined));
        if (seq % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(seqs(await followed)).toEqual(range(2, 20));
    });

    it('ends a follow at run.paused, and follows a run whose first event has not arrived yet', async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      const followed = collect(peer.follow(runId, 0));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await log.append(runId, runEvents(runId, 1, 4, 'paused'));
      expect(seqs(await followed)).toEqual([1, 2, 3, 4]);
    });

    it('gives every follower every event once, in order, however many follow one run', async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 1));
      const followers = Array.from({ length: 12 }, (_, index) =>
        collect((index % 2 === 0 ? peer : log).follow(runId, index % 3)),
      );
      for (let seq = 2; seq <= 60; seq += 3) {
        await log.append(runId, runEvents(runId, seq, seq + 2, seq + 2 === 61 ? 'finished' : undefined));
      }
      const results = await Promise.all(followers);
      results.forEach((events, index) => {
        expect(seqs(events)).toEqual(range((index % 3) + 1, 61));
      });
    });

    it('stops following quietly when the signal aborts', async () => {
      const { log, peer } = get();
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 2));
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const event of peer.follow(runId, 0, { signal: controller.signal })) seen.push(event.seq);
      })();
      await new Promise((resolve) => setTimeout(resolve, 30));
      controller.abort();
      await following;
      expect(seen).toEqual([1, 2]);
    });

    it('is capped: past the cap a reader learns the log is incomplete and a follower gets a gap', async () => {
      const { log } = await open({ capacity: 10 });
      const runId = freshRunId();
      for (let seq = 1; seq <= 1000; seq += 100) await log.append(runId, runEvents(runId, seq, seq + 99));
      const read = await log.read(runId, 0);
      expect(read).toMatchObject({ complete: false, lastSeq: 1000 });
      // Approximate trimming may keep a little more than the cap, never the whole run.
      expect(read.events.length).toBeLessThan(1000);
      expect(read.events.at(-1)?.seq).toBe(1000);
      const error = await collect(log.follow(runId, 0)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EventLogGap);
    });

    it('keeps the log of a run that goes on after its expiry was set (a resumed pause)', async () => {
      const { log } = await open({ ttlMs: 100 });
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 3, 'paused'));
      await log.expire(runId);
      await log.append(runId, runEvents(runId, 4, 5));
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await log.read(runId, 0)).events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it("lets an ended run's log expire", async () => {
      const { log } = await open({ ttlMs: 50 });
      const runId = freshRunId();
      await log.append(runId, runEvents(runId, 1, 3, 'finished'));
      await log.expire(runId);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await log.read(runId, 0)).toEqual({ events: [], complete: false, lastSeq: null });
    });
  });
}
