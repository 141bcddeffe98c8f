import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../run-store.ts';
import { describeToolCallConformance } from './run-store-conformance-tool-calls.ts';
import { expectStoreError, type RunStoreHarness, seedPausedMessage } from './run-store-harness.ts';

const ALL_STATUSES: readonly RunStatus[] = [
  'running',
  'paused',
  'completed',
  'cancelled',
  'failed',
  'interrupted',
];

/** Runs, tool calls and decisions: the part of the conformance suite the runtime leans on hardest. */
export function describeRunAndToolCallConformance(get: () => RunStoreHarness): void {
  describe('runs', () => {
    it('creates and gets a run, stamped with the store clock', async () => {
      const { store, clock } = get();
      const { run, conversation } = await get().run('running');
      expect(run).toEqual({
        id: 'run_test1',
        conversationId: conversation.id,
        messageId: 'msg_test1',
        userId: conversation.userId,
        status: 'running',
        cancelReason: null,
        lastSeq: 0,
        leaseOwner: null,
        leaseExpiresAt: null,
        stopRequested: null,
        agentId: null,
        agentRevision: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      expect(await store.getRun(run.id)).toEqual(run);
      expect(await store.getRun('run_nope')).toBeUndefined();
    });

    it('records the agent and revision a run ran, on every read, and no patch changes them', async () => {
      const { store, clock } = get();
      const { conversation } = await get().conversation();
      const run = await store.createRun({
        id: 'run_agent',
        conversationId: conversation.id,
        messageId: 'msg_agent',
        userId: conversation.userId,
        status: 'running',
        cancelReason: null,
        lastSeq: 0,
        leaseOwner: 'instance-a',
        leaseExpiresAt: clock.now() + 30_000,
        agentId: 'homefix',
        agentRevision: 'sha256:4f2a9c',
      });
      expect(run).toMatchObject({ agentId: 'homefix', agentRevision: 'sha256:4f2a9c', stopRequested: null });
      expect(await store.getRun(run.id)).toEqual(run);
      expect(await store.findActiveRun(conversation.id)).toEqual(run);
      expect(await store.listRunsByStatus('running')).toEqual([run]);

      clock.advance(100);
      const paused = await store.transitionRun(
        run.id,
        { status: ['running'], leaseOwner: 'instance-a' },
        { status: 'paused', lastSeq: 9, leaseOwner: null, leaseExpiresAt: null },
      );
      expect(paused).toMatchObject({ agentId: 'homefix', agentRevision: 'sha256:4f2a9c', status: 'paused' });
      await store.saveAssistantMessage(conversation.id, run.messageId, run.id, {
        ...seedPausedMessage(),
        lastSeq: 9,
      });
      await store.saveCheckpoint(run.id, { iterations: 1 });
      clock.advance(100);
      const finished = await store.updateRun(run.id, { status: 'completed' });
      expect(finished).toEqual({
        ...run,
        status: 'completed',
        lastSeq: 9,
        leaseOwner: null,
        leaseExpiresAt: null,
        updatedAt: clock.now(),
      });
      expect(await store.listRunsByStatus('completed')).toEqual([finished]);
    });

    it('stores a run without a revision, or without an agent, with null in its place', async () => {
      const { store } = get();
      const { conversation } = await get().conversation();
      const base = {
        conversationId: conversation.id,
        userId: conversation.userId,
        status: 'completed' as const,
        cancelReason: null,
        lastSeq: 0,
        leaseOwner: null,
        leaseExpiresAt: null,
      };
      const agentOnly = await store.createRun({
        ...base,
        id: 'run_a',
        messageId: 'msg_a',
        agentId: 'novashop',
      });
      const explicit = await store.createRun({
        ...base,
        id: 'run_b',
        messageId: 'msg_b',
        agentId: null,
        agentRevision: null,
      });
      expect(agentOnly).toMatchObject({ agentId: 'novashop', agentRevision: null });
      expect(explicit).toMatchObject({ agentId: null, agentRevision: null });
      expect(await store.getRun('run_a')).toEqual(agentOnly);
      expect(await store.getRun('run_b')).toEqual(explicit);
    });

    it('refuses a taken run id, an unknown conversation and a user who does not own it', async () => {
      const { store } = get();
      const { run, conversation } = await get().run('completed');
      const base = { ...run, id: 'run_new', status: 'completed' as const };
      await expectStoreError(store.createRun({ ...base, id: run.id }), 'already_exists');
      await expectStoreError(store.createRun({ ...base, conversationId: 'conv_nope' }), 'not_found');
      const mallory = await store.createUser('Mallory');
      await expectStoreError(store.createRun({ ...base, userId: mallory.id }), 'conflict');
      expect(await store.getRun('run_new')).toBeUndefined();
      expect(conversation.userId).toBe(run.userId);
    });

    it('updates only the fields given, clears with an explicit null, and bumps updatedAt', async () => {
      const { store, clock } = get();
      const { run } = await get().run('running');
      clock.advance(250);
      const leased = await store.updateRun(run.id, {
        lastSeq: 12,
        leaseOwner: 'instance-a',
        leaseExpiresAt: clock.now() + 30_000,
      });
      expect(leased).toEqual({
        ...run,
        lastSeq: 12,
        leaseOwner: 'instance-a',
        leaseExpiresAt: clock.now() + 30_000,
        updatedAt: clock.now(),
      });
      expect(await store.getRun(run.id)).toEqual(leased);
      clock.advance(250);
      const cancelled = await store.updateRun(run.id, {
        status: 'cancelled',
        cancelReason: 'user_stop',
        leaseOwner: null,
        leaseExpiresAt: null,
      });
      expect(cancelled).toEqual({
        ...leased,
        status: 'cancelled',
        cancelReason: 'user_stop',
        leaseOwner: null,
        leaseExpiresAt: null,
        updatedAt: clock.now(),
      });
      expect(cancelled.createdAt).toBe(run.createdAt);
      clock.advance(1);
      expect(await store.updateRun(run.id, {})).toEqual({ ...cancelled, updatedAt: clock.now() });
    });

    it('moves a run only when the condition holds: status, lease holder, lapsed lease, no stop yet', async () => {
      const { store, clock } = get();
      const { run } = await get().run('paused');
      await expectStoreError(store.transitionRun('run_nope', {}, { status: 'failed' }), 'not_found');
      // Resuming a paused run: one instance claims it with its lease.
      const claimed = await store.transitionRun(
        run.id,
        { status: ['paused'] },
        { status: 'running', leaseOwner: 'instance-a', leaseExpiresAt: clock.now() + 10_000 },
      );
      expect(claimed).toMatchObject({ status: 'running', leaseOwner: 'instance-a' });
      expect(
        await store.transitionRun(
          run.id,
          { status: ['paused'] },
          { status: 'running', leaseOwner: 'instance-b' },
        ),
      ).toBeUndefined();
      // Renewal by the holder only.
      expect(
        await store.transitionRun(
          run.id,
          { status: ['running'], leaseOwner: 'instance-b' },
          { leaseExpiresAt: 1 },
        ),
      ).toBeUndefined();
      expect(
        await store.transitionRun(
          run.id,
          { status: ['running'], leaseOwner: 'instance-a' },
          { leaseExpiresAt: clock.now() + 20_000 },
        ),
      ).toMatchObject({ leaseExpiresAt: clock.now() + 20_000 });
      // A takeover waits for the lease to lapse.
      const takeOver = () =>
        store.transitionRun(
          run.id,
          { status: ['running'], leaseExpiredBefore: clock.now() },
          { leaseOwner: 'instance-b', leaseExpiresAt: clock.now() + 10_000 },
        );
      expect(await takeOver()).toBeUndefined();
      clock.advance(20_001);
      expect(await takeOver()).toMatchObject({ leaseOwner: 'instance-b' });
      // A stop request is recorded once: the first reason stands.
      expect(
        await store.transitionRun(
          run.id,
          { status: ['running'], noStopRequested: true },
          { stopRequested: 'user_stop' },
        ),
      ).toMatchObject({ stopRequested: 'user_stop' });
      expect(
        await store.transitionRun(
          run.id,
          { status: ['running'], noStopRequested: true },
          { stopRequested: 'other' },
        ),
      ).toBeUndefined();
      // Clearing the lease with an explicit null, and matching "held by nobody".
      await store.transitionRun(
        run.id,
        { leaseOwner: 'instance-b' },
        { status: 'cancelled', leaseOwner: null },
      );
      expect(
        await store.transitionRun(run.id, { leaseOwner: null }, { cancelReason: 'user_stop' }),
      ).toMatchObject({
        status: 'cancelled',
        leaseOwner: null,
        cancelReason: 'user_stop',
        stopRequested: 'user_stop',
      });
    });

    it('lets exactly one of many racing instances claim a paused run', async () => {
      const { store } = get();
      const { run } = await get().run('paused');
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          store.transitionRun(
            run.id,
            { status: ['paused'] },
            { status: 'running', leaseOwner: `instance-${index}` },
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome !== undefined)).toHaveLength(1);
    });

    it('refuses to make a run active by a transition while its conversation has another active run', async () => {
      const { store } = get();
      const { run, conversation } = await get().run('completed');
      await get().run('running', conversation);
      await expectStoreError(
        store.transitionRun(run.id, { status: ['completed'] }, { status: 'paused' }),
        'active_run_exists',
      );
    });

    it('moves the run to the lastSeq of the assistant message saved for it, in the same write', async () => {
      const { store, clock } = get();
      const { run, conversation } = await get().run('running');
      clock.advance(250);
      const message = { ...seedPausedMessage(), status: 'running' as const, lastSeq: 7 };
      await store.saveAssistantMessage(conversation.id, run.messageId, run.id, message);
      expect(await store.getRun(run.id)).toEqual({ ...run, lastSeq: 7, updatedAt: clock.now() });
      clock.advance(250);
      await store.saveAssistantMessage(conversation.id, run.messageId, run.id, { ...message, lastSeq: 9 });
      expect(await store.getRun(run.id)).toEqual({ ...run, lastSeq: 9, updatedAt: clock.now() });
      // A message whose run is not stored (an import, a test) is saved all the same.
      await store.saveAssistantMessage(conversation.id, 'msg_orphan', 'run_orphan', message);
      expect(await store.getRun('run_orphan')).toBeUndefined();
    });

    it('fails with not_found when updating an unknown run', async () => {
      const { store } = get();
      await expectStoreError(store.updateRun('run_nope', { status: 'failed' }), 'not_found');
    });

    it('finds the active run: running or paused, never a finished one, never another conversation’s', async () => {
      const { store } = get();
      const { conversation } = await get().conversation();
      const { conversation: other } = await get().run('running');
      expect(await store.findActiveRun(conversation.id)).toBeUndefined();
      for (const status of ALL_STATUSES) {
        const { run } = await get().run(status, conversation);
        const active = await store.findActiveRun(conversation.id);
        if (status === 'running' || status === 'paused') {
          expect(active).toEqual(run);
          await store.updateRun(run.id, { status: 'completed' });
        } else expect(active).toBeUndefined();
      }
      expect((await store.findActiveRun(other.id))?.conversationId).toBe(other.id);
      expect(await store.findActiveRun('conv_nope')).toBeUndefined();
    });

    it('allows one active run per conversation, and names it when refusing a second', async () => {
      const { store } = get();
      const { run: first, conversation } = await get().run('paused');
      const second = { ...first, id: 'run_second', messageId: 'msg_second', status: 'running' as const };
      const error = await expectStoreError(store.createRun(second), 'active_run_exists');
      expect(error.existingId).toBe(first.id);
      // A finished run may be recorded beside it; bringing that one back to life is refused too.
      const finished = await store.createRun({ ...second, status: 'completed' });
      await expectStoreError(store.updateRun(finished.id, { status: 'running' }), 'active_run_exists');
      // Pausing or resuming the active run itself is fine.
      await store.updateRun(first.id, { status: 'running' });
      await store.updateRun(first.id, { status: 'interrupted' });
      await store.updateRun(finished.id, { status: 'running' });
      expect((await store.findActiveRun(conversation.id))?.id).toBe(finished.id);
      // Racing creations: exactly one wins.
      const { conversation: fresh } = await get().conversation();
      const attempts = await Promise.allSettled(
        [1, 2, 3, 4, 5].map((n) =>
          store.createRun({ ...second, id: `run_race${n}`, conversationId: fresh.id, userId: fresh.userId }),
        ),
      );
      expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    });

    it('keeps a checkpoint per run until it is cleared', async () => {
      const { store, clock } = get();
      const { run } = await get().run('paused');
      const { run: other } = await get().run('paused');
      expect(await store.getCheckpoint(run.id)).toBeUndefined();
      const checkpoint = {
        transcript: [
          { role: 'user', content: '我买的那块表还没发货的话，帮我取消吧' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'call_a', arguments: '{"orderId":"88235"}' }],
          },
        ],
        loadedSkills: ['order-change'],
        iterations: 3,
        pending: [{ toolCallId: 'call_a', name: 'cancel_order', args: { orderId: '88235' } }],
      };
      clock.advance(10);
      await store.saveCheckpoint(run.id, checkpoint);
      expect(await store.getCheckpoint(run.id)).toEqual(checkpoint);
      expect(await store.getCheckpoint(other.id)).toBeUndefined();
      expect((await store.getRun(run.id))?.updatedAt).toBe(clock.now());
      // A copy comes back: changing it changes nothing stored.
      const loaded = (await store.getCheckpoint(run.id)) as typeof checkpoint;
      loaded.iterations = 99;
      expect(await store.getCheckpoint(run.id)).toEqual(checkpoint);
      await store.saveCheckpoint(run.id, { ...checkpoint, iterations: 4 });
      expect(await store.getCheckpoint(run.id)).toEqual({ ...checkpoint, iterations: 4 });
      await store.saveCheckpoint(run.id, null);
      expect(await store.getCheckpoint(run.id)).toBeUndefined();
      await expectStoreError(store.saveCheckpoint('run_nope', checkpoint), 'not_found');
      expect(await store.getCheckpoint('run_nope')).toBeUndefined();
    });

    it('lists runs by status in creation order', async () => {
      const { store } = get();
      const { run: a } = await get().run('running');
      const { run: b } = await get().run('paused');
      const { run: c } = await get().run('running');
      await get().run('completed');
      expect((await store.listRunsByStatus('running')).map((run) => run.id)).toEqual([a.id, c.id]);
      expect(await store.listRunsByStatus('paused')).toEqual([b]);
      expect(await store.listRunsByStatus('interrupted')).toEqual([]);
    });
  });

  describeToolCallConformance(get);
}
