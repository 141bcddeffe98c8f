import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEventLog } from '../bus/index.ts';
import { MemoryRunStore, type RunRecord } from '../store/index.ts';
import { RunLog } from './run-log.ts';
import { RunReplicas } from './run-replicas.ts';

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
});
