import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEventLog } from '../../bus/index.ts';
import { MemoryRunStore, type RunRecord } from '../../store/index.ts';
import { RUN_MESSAGES } from '../agent/run-messages.ts';
import { RunLog } from './run-log.ts';
import { RunReplicas } from './run-replicas.ts';

const ENDING_NOT_SAVED_MESSAGE = RUN_MESSAGES['zh-CN'].endingNotSaved;
const messagesOf = () => RUN_MESSAGES['zh-CN'];

let replicas: RunReplicas | undefined;

afterEach(() => replicas?.close());

function finishedLog(runId: string, deltas: number): RunLog {
  const log = new RunLog(runId);
  log.append({ type: 'run.started', conversationId: 'conv_1', messageId: `msg_${runId}` });
  log.append({ type: 'block.started', blockId: 'b1', kind: 'answer' });
  for (let index = 0; index < deltas; index += 1)
    log.append({ type: 'block.delta', blockId: 'b1', text: 'x' });
  log.append({ type: 'block.ended', blockId: 'b1', endedAt: 1, durationMs: 1 });
  log.append({ type: 'run.finished', status: 'completed' });
  return log;
}

function record(log: RunLog): RunRecord {
  return {
    id: log.runId,
    conversationId: 'conv_1',
    messageId: `msg_${log.runId}`,
    userId: 'user_1',
    status: 'completed',
    cancelReason: null,
    lastSeq: log.lastSeq,
    leaseOwner: null,
    leaseExpiresAt: null,
    stopRequested: null,
  } as RunRecord;
}

describe('RunReplicas', () => {
  it('keeps finished copies within an event budget, letting the oldest go first', async () => {
    replicas = new RunReplicas({
      messagesOf,
      store: new MemoryRunStore(),
      eventLog: new MemoryEventLog(),
      maxKeptEvents: 250,
    });
    const logs = ['run_a', 'run_b', 'run_c'].map((runId) => finishedLog(runId, 96));
    for (const log of logs) replicas.adopt(log);
    const [first, second, third] = logs as [RunLog, RunLog, RunLog];
    // 100 events each: the third copy pushed the total past 250, so the oldest went.
    expect(await replicas.get(record(third))).toBe(third);
    expect(await replicas.get(record(second))).toBe(second);
    expect(await replicas.get(record(first))).not.toBe(first);
  });

  it('ends a copy whose store has the run failed but not the message of its ending', async () => {
    const store = new MemoryRunStore();
    const user = await store.createUser('shopper');
    const conversation = await store.createConversation(user.id, '退货');
    const run = await store.createRun({
      id: 'run_full',
      conversationId: conversation.id,
      messageId: 'msg_full',
      userId: user.id,
      status: 'running',
      cancelReason: null,
      lastSeq: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    // The last write that fit: an answer still streaming. Then only the run's `failed` went in.
    const behind = new RunLog(run.id);
    behind.append({ type: 'run.started', conversationId: conversation.id, messageId: 'msg_full' });
    behind.append({ type: 'block.started', blockId: 'b1', kind: 'answer' });
    behind.append({ type: 'block.delta', blockId: 'b1', text: '七天无理由' });
    await store.saveAssistantMessage(conversation.id, 'msg_full', run.id, behind.message());
    const failed = await store.updateRun(run.id, { status: 'failed', lastSeq: 40 });
    replicas = new RunReplicas({ messagesOf, store, eventLog: new MemoryEventLog() });
    const copy = await replicas.get(failed);
    expect(copy.finished).toBe(true);
    expect(copy.state).toMatchObject({
      status: 'failed',
      error: { code: 'ending_not_saved', message: ENDING_NOT_SAVED_MESSAGE },
    });
    expect(copy.state.blocks.map((block) => `${block.kind}:${block.status}`)).toEqual([
      'answer:interrupted',
      'error:done',
    ]);
    expect(copy.state.blocks[0]).toMatchObject({ text: '七天无理由' });
    expect(copy.state.anomalies).toEqual([]);
  });
});
