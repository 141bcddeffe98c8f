import { describe, expect, it } from 'vitest';
import type { Decision, ToolCallRecord } from '../run-store.ts';
import { expectStoreError, type RunStoreHarness } from './run-store-harness.ts';

/**
 * Tool calls and the shopper's decisions on them: recorded with their run, decided once, claimed for
 * execution once. Called from `describeRunAndToolCallConformance`, beside its runs.
 */
export function describeToolCallConformance(get: () => RunStoreHarness): void {
  describe('tool calls and decisions', () => {
    const toolCall = (runId: string, toolCallId: string, fields: Partial<ToolCallRecord> = {}) => ({
      runId,
      toolCallId,
      name: 'cancel_order',
      args: { orderId: '88235', items: [{ sku: 'AW-S12', quantity: 1 }], note: '不想要了' },
      effect: 'write' as const,
      status: 'awaiting_confirmation' as const,
      decision: null,
      ...fields,
    });
    const approve = (at: number, note?: string): Decision => ({
      decision: 'approve',
      decidedAt: at,
      ...(note === undefined ? {} : { note }),
    });

    it('saves, gets and lists tool calls in creation order, per run', async () => {
      const { store, clock } = get();
      const { run } = await get().run('running');
      const { run: other } = await get().run('running');
      await store.saveToolCall(
        toolCall(run.id, 'call_b', { name: 'query_order', effect: 'read', status: 'running' }),
      );
      await store.saveToolCall(toolCall(run.id, 'call_a'));
      await store.saveToolCall(toolCall(other.id, 'call_b'));
      expect(await store.getToolCall(run.id, 'call_a')).toEqual({
        ...toolCall(run.id, 'call_a'),
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      expect((await store.listToolCalls(run.id)).map((call) => call.toolCallId)).toEqual([
        'call_b',
        'call_a',
      ]);
      expect(await store.listToolCalls(other.id)).toHaveLength(1);
      expect(await store.getToolCall(run.id, 'call_nope')).toBeUndefined();
      expect(await store.getToolCall('run_nope', 'call_a')).toBeUndefined();
      expect(await store.listToolCalls('run_nope')).toEqual([]);
      await expectStoreError(store.saveToolCall(toolCall('run_nope', 'call_a')), 'not_found');
    });

    it('replaces a tool call in place, with its result or error, keeping createdAt', async () => {
      const { store, clock } = get();
      const { run } = await get().run('running');
      await store.saveToolCall(toolCall(run.id, 'call_a', { status: 'running', effect: 'read' }));
      await store.saveToolCall(toolCall(run.id, 'call_b', { status: 'running', effect: 'read' }));
      const createdAt = clock.now();
      clock.advance(40);
      const result = { orders: [{ id: '88235', status: '已支付待发货' }], total: null };
      await store.saveToolCall(toolCall(run.id, 'call_a', { status: 'done', effect: 'read', result }));
      const error = { code: 'invalid_arguments', message: 'orderId: expected string' };
      await store.saveToolCall(toolCall(run.id, 'call_b', { status: 'failed', effect: 'read', error }));
      const [a, b] = await store.listToolCalls(run.id);
      expect(a).toEqual({
        ...toolCall(run.id, 'call_a', { status: 'done', effect: 'read', result }),
        createdAt,
        updatedAt: clock.now(),
      });
      expect(b).toMatchObject({ toolCallId: 'call_b', status: 'failed', error, createdAt });
      expect(b && 'result' in b).toBe(false);
    });

    it('decides once: the first decision is applied, later ones get it back', async () => {
      const { store, clock } = get();
      const { run } = await get().run('paused');
      await store.saveToolCall(toolCall(run.id, 'call_a'));
      const first = await store.decide(run.id, 'call_a', approve(clock.now(), '确认取消'));
      expect(first).toEqual({ applied: true, decision: approve(clock.now(), '确认取消') });
      clock.advance(100);
      const second = await store.decide(run.id, 'call_a', { decision: 'reject', decidedAt: clock.now() });
      expect(second).toEqual({ applied: false, decision: first.decision });
      expect((await store.getToolCall(run.id, 'call_a'))?.decision).toEqual(first.decision);
      await expectStoreError(store.decide(run.id, 'call_nope', approve(1)), 'not_found');
      await expectStoreError(store.decide('run_nope', 'call_a', approve(1)), 'not_found');
    });

    it('decides once under concurrency: one racing caller wins, all see its decision', async () => {
      const { store, clock } = get();
      const { run } = await get().run('paused');
      await store.saveToolCall(toolCall(run.id, 'call_a'));
      const decisions: Decision[] = Array.from({ length: 12 }, (_, n) => ({
        decision: n % 2 === 0 ? 'approve' : 'reject',
        decidedAt: clock.now() + n,
      }));
      const outcomes = await Promise.all(
        decisions.map((decision) => store.decide(run.id, 'call_a', decision)),
      );
      const winners = outcomes.filter((outcome) => outcome.applied);
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) expect(outcome.decision).toEqual(winners[0]?.decision);
      expect((await store.getToolCall(run.id, 'call_a'))?.decision).toEqual(winners[0]?.decision);
    });

    it('never lets a later save erase a decision', async () => {
      const { store } = get();
      const { run } = await get().run('paused');
      await store.saveToolCall(toolCall(run.id, 'call_a'));
      const { decision } = await store.decide(run.id, 'call_a', approve(5));
      // The runtime's copy from before the click still says `decision: null`.
      await store.saveToolCall(toolCall(run.id, 'call_a', { status: 'running', decision: null }));
      expect(await store.getToolCall(run.id, 'call_a')).toMatchObject({ status: 'running', decision });
      expect(await store.decide(run.id, 'call_a', { decision: 'reject', decidedAt: 9 })).toEqual({
        applied: false,
        decision,
      });
    });

    it('claims an execution once, also under concurrency and across later saves', async () => {
      const { store } = get();
      const { run } = await get().run('running');
      await store.saveToolCall(toolCall(run.id, 'call_a'));
      await store.saveToolCall(toolCall(run.id, 'call_b'));
      expect(await store.claimExecution(run.id, 'call_a')).toBe(true);
      expect(await store.claimExecution(run.id, 'call_a')).toBe(false);
      await store.saveToolCall(toolCall(run.id, 'call_a', { status: 'done', result: { cancelled: true } }));
      expect(await store.claimExecution(run.id, 'call_a')).toBe(false);

      const claims = await Promise.all(
        Array.from({ length: 12 }, () => store.claimExecution(run.id, 'call_b')),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      await expectStoreError(store.claimExecution(run.id, 'call_nope'), 'not_found');
    });
  });
}
