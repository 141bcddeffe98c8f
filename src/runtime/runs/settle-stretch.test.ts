import { describe, expect, it } from 'vitest';
import { MemoryRunStore, type RunPatch, type RunRecord } from '../../store/index.ts';
import { RunLog } from '../log/run-log.ts';
import { GIVE_UP_ROUNDS, STRETCH_END_ATTEMPTS, settleStretch } from './settle-stretch.ts';

async function finishedRun(store: MemoryRunStore) {
  const user = await store.createUser('shopper');
  const conversation = await store.createConversation(user.id, '退货');
  await store.createRun({
    id: 'run_1',
    conversationId: conversation.id,
    messageId: 'msg_1',
    userId: user.id,
    status: 'running',
    cancelReason: null,
    lastSeq: 0,
    leaseOwner: 'inst_a',
    leaseExpiresAt: null,
  });
  const log = new RunLog('run_1');
  log.append({ type: 'run.started', conversationId: conversation.id, messageId: 'msg_1' });
  log.append({ type: 'run.finished', status: 'completed' });
  return { log, conversationId: conversation.id };
}

/** `settleStretch` of a completed run's stretch, with what a test changes. */
async function settle(store: MemoryRunStore, options: Partial<Parameters<typeof settleStretch>[0]>) {
  const { log, conversationId } = await finishedRun(store);
  const finished = await settleStretch({
    store,
    log,
    conversationId,
    outcome: { status: 'completed' },
    runOptions: { face: 'chat', hostTools: [] },
    finishRun: async () => {},
    persistedThrough: 0,
    stillOwned: async () => true,
    ...options,
  });
  return { finished, log };
}

/** A store that refuses every run write while `down` (a lock another process holds, an outage). */
class LockedStore extends MemoryRunStore {
  down = false;
  override async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    if (this.down) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    return super.updateRun(id, patch);
  }
}

describe('settleStretch', () => {
  it('writes nothing for a run another instance took over', async () => {
    const store = new MemoryRunStore();
    const writes: unknown[] = [];
    const { finished } = await settle(store, {
      finishRun: async (patch) => void writes.push(patch),
      stillOwned: async () => false,
    });
    expect(finished).toBe(false);
    expect(writes).toEqual([]);
    expect((await store.getRun('run_1'))?.status).toBe('running');
  });

  it('retries a refused ending, then frees the conversation as failed', async () => {
    const store = new MemoryRunStore();
    const errors: unknown[] = [];
    let attempts = 0;
    const { finished, log } = await settle(store, {
      finishRun: async () => {
        attempts += 1;
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
      // The boundary writes stored the whole message: only the run's ending is left to write.
      persistedThrough: Number.MAX_SAFE_INTEGER,
      onError: (_runId, error) => errors.push(error),
      backoffMs: () => 0,
    });
    expect(finished).toBe(true);
    expect(attempts).toBe(STRETCH_END_ATTEMPTS);
    // Each failed attempt is reported, and the last once more as the reason for giving up.
    expect(errors).toHaveLength(STRETCH_END_ATTEMPTS);
    expect(await store.getRun('run_1')).toMatchObject({
      status: 'failed',
      lastSeq: log.lastSeq,
      leaseOwner: null,
    });
  });

  it('when the store refuses even the failed, offers it the whole ending again once it is back', async () => {
    const store = new LockedStore();
    const errors: unknown[] = [];
    let waits = 0;
    store.down = true;
    const { finished, log } = await settle(store, {
      finishRun: (patch) => store.updateRun('run_1', patch).then(() => undefined),
      onError: (_runId, error) => errors.push(error),
      backoffMs: () => {
        waits += 1;
        // Released during the third wait after giving up: the ending lands, not `failed`.
        if (waits === STRETCH_END_ATTEMPTS - 1 + 3) store.down = false;
        return 0;
      },
    });
    expect(finished).toBe(true);
    expect(await store.getRun('run_1')).toMatchObject({ status: 'completed', lastSeq: log.lastSeq });
    expect(errors).toHaveLength(STRETCH_END_ATTEMPTS);
  });

  it('gives up after its rounds when the store never takes a write, and says so', async () => {
    const store = new LockedStore();
    const errors: unknown[] = [];
    let waits = 0;
    store.down = true;
    const { finished } = await settle(store, {
      finishRun: (patch) => store.updateRun('run_1', patch).then(() => undefined),
      onError: (_runId, error) => errors.push(error),
      backoffMs: () => {
        waits += 1;
        return 0;
      },
    });
    expect(finished).toBe(true);
    expect(waits).toBe(STRETCH_END_ATTEMPTS - 1 + GIVE_UP_ROUNDS);
    expect(errors).toHaveLength(STRETCH_END_ATTEMPTS + 1);
    expect((await store.getRun('run_1'))?.status).toBe('running');
  });
});
