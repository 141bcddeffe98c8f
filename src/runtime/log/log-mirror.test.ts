import { describe, expect, it } from 'vitest';
import { type EventLog, EventLogConflict, MemoryEventLog } from '../../bus/index.ts';
import { runEvents } from '../../bus/test-support/index.ts';
import { ScriptedChatModel, textTurn } from '../../models/index.ts';
import type { LoggedRunEvent } from '../../protocol/index.ts';
import { MemoryRunStore } from '../../store/index.ts';
import { RUN_MESSAGES } from '../agent/run-messages.ts';
import { RunManager } from '../runs/run-manager.ts';
import { testAgent } from '../test-support/test-agent.ts';
import { LogMirror } from './log-mirror.ts';

const LIVE_LOG_UNREACHABLE_MESSAGE = RUN_MESSAGES['zh-CN'].liveLogUnreachable;

/** An event log that records each append and fails the first `failures` of them. */
class FlakyEventLog extends MemoryEventLog {
  readonly appends: number[][] = [];
  failures: number;
  constructor(failures = 0) {
    super();
    this.failures = failures;
  }
  override async append(runId: string, events: readonly LoggedRunEvent[]): Promise<void> {
    this.appends.push(events.map((event) => event.seq));
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    }
    await super.append(runId, events);
  }
}

function mirrorOn(eventLog: EventLog, giveUpMs = 2000) {
  const outcome: { lost?: EventLogConflict; unreachable?: unknown } = {};
  const mirror = new LogMirror({
    eventLog,
    runId: 'run_m',
    giveUpMs,
    onLost: (error) => {
      outcome.lost = error;
    },
    onUnreachable: (error) => {
      outcome.unreachable = error;
    },
  });
  return { mirror, outcome };
}

describe('LogMirror', () => {
  it('sends a burst of events in one append, and holds the stretch’s end until released', async () => {
    const log = new FlakyEventLog();
    const { mirror } = mirrorOn(log);
    for (const event of runEvents('run_m', 1, 5)) mirror.push(event);
    await mirror.flushed();
    for (const event of runEvents('run_m', 6, 8, 'finished')) mirror.push(event);
    await mirror.flushed();
    expect(log.appends).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7],
    ]);
    mirror.release();
    await mirror.flushed();
    expect(log.appends.at(-1)).toEqual([8]);
    expect((await log.read('run_m', 0)).lastSeq).toBe(8);
  });

  it('retries a failed append with the same events, in order, until it lands', async () => {
    const log = new FlakyEventLog(2);
    const { mirror, outcome } = mirrorOn(log);
    for (const event of runEvents('run_m', 1, 3)) mirror.push(event);
    await mirror.flushed();
    expect(log.appends).toEqual([
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(outcome).toEqual({});
    expect((await log.read('run_m', 0)).events.map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  it('stops and says so when another writer appended first', async () => {
    const log = new MemoryEventLog();
    await log.append('run_m', runEvents('run_m', 1, 4));
    const { mirror, outcome } = mirrorOn(log);
    for (const event of runEvents('run_m', 3, 5)) mirror.push(event);
    await mirror.flushed();
    expect(outcome.lost).toBeInstanceOf(EventLogConflict);
    mirror.push(runEvents('run_m', 6, 6)[0] as LoggedRunEvent);
    await mirror.flushed();
    expect((await log.read('run_m', 0)).lastSeq).toBe(4);
  });

  it('gives up after its time and reports the log unreachable', async () => {
    const log = new FlakyEventLog(1_000);
    const { mirror, outcome } = mirrorOn(log, 300);
    for (const event of runEvents('run_m', 1, 2)) mirror.push(event);
    await mirror.flushed();
    expect(String(outcome.unreachable)).toContain('ECONNREFUSED');
  });
});

describe('a run whose shared log is unreachable', () => {
  it('ends interrupted with an error block the shopper reads, persisted whole', async () => {
    const store = new MemoryRunStore();
    const user = await store.createUser('shopper');
    const conversation = await store.createConversation(user.id, '退货');
    const runs = new RunManager({
      agents: [
        testAgent({
          model: new ScriptedChatModel([textTurn('七天无理由退货。'.repeat(30), { chunkSize: 2 })], {
            delayMs: 10,
          }),
          tools: [],
          skills: [],
          instructions: '你是 NovaShop 客服。',
        }),
      ],
      store,
      eventLog: new FlakyEventLog(Number.POSITIVE_INFINITY),
      liveLogGiveUpMs: 200,
    });
    const log = await runs.startRun(user.id, conversation.id, '退货政策是什么？');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('interrupted');
    const run = await runs.getRun(user.id, log.runId);
    expect(run).toMatchObject({ status: 'interrupted', cancelReason: 'live_log_unreachable' });
    const stored = (await store.listMessages(conversation.id)).find(
      (message) => message.role === 'assistant',
    );
    const blocks = stored?.role === 'assistant' ? stored.message.blocks : [];
    expect(blocks.at(-1)).toMatchObject({ kind: 'error', text: LIVE_LOG_UNREACHABLE_MESSAGE });
    // Nothing half-written: every block is closed.
    expect(blocks.every((block) => block.status !== 'streaming')).toBe(true);
    await runs.close();
  });
});
