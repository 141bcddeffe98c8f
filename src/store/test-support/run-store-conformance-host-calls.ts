import { describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../run-store.ts';
import { expectStoreError, type RunStoreHarness } from './run-store-harness.ts';

/** Host tool calls: results submitted by the caller, once, and found again by call id. */
export function describeHostToolCallConformance(get: () => RunStoreHarness): void {
  describe('host tool results', () => {
    const hostCall = (runId: string, toolCallId: string, fields: Partial<ToolCallRecord> = {}) => ({
      runId,
      toolCallId,
      name: 'read_local_file',
      args: { path: './README.md' },
      effect: 'host' as const,
      status: 'pending' as const,
      decision: null,
      ...fields,
    });

    it("finds the open host calls of the user's paused runs by call id, and nothing else", async () => {
      const { store } = get();
      const { run, conversation } = await get().run('paused');
      const { run: bobs } = await get().run('paused'); // another user's run
      await store.saveToolCall(hostCall(run.id, 'call_a'));
      await store.saveToolCall(hostCall(run.id, 'call_b'));
      await store.saveToolCall(
        hostCall(run.id, 'call_w', { effect: 'write', status: 'awaiting_confirmation' }),
      );
      await store.saveToolCall(hostCall(bobs.id, 'call_a'));
      await store.saveToolCall(hostCall(bobs.id, 'call_bob'));
      const find = (ids: string[]) => store.findOpenHostCalls(conversation.userId, ids);
      const ids = (calls: ToolCallRecord[]) => calls.map((call) => `${call.runId}/${call.toolCallId}`);

      expect(ids(await find(['call_a', 'call_b', 'call_a']))).toEqual([
        `${run.id}/call_a`,
        `${run.id}/call_b`,
      ]);
      // Another user's call, a write, an unknown id, nothing asked: no match.
      expect(await find(['call_bob', 'call_w', 'call_nope'])).toEqual([]);
      expect(await find([])).toEqual([]);
      expect(await store.findOpenHostCalls('usr_nobody', ['call_a'])).toEqual([]);
      // Answered, or the run no longer paused: no longer open.
      await store.recordToolResult(run.id, 'call_a', { output: 'done' });
      expect(ids(await find(['call_a', 'call_b']))).toEqual([`${run.id}/call_b`]);
      await store.updateRun(run.id, { status: 'cancelled', cancelReason: 'user_stop' });
      expect(await find(['call_b'])).toEqual([]);
    });

    it('records a host result once: the first is applied, later ones get it back', async () => {
      const { store, clock } = get();
      const { run } = await get().run('paused');
      await store.saveToolCall(hostCall(run.id, 'call_h1'));
      await store.saveToolCall(hostCall(run.id, 'call_h2'));
      expect(await store.getToolCall(run.id, 'call_h1')).toEqual({
        ...hostCall(run.id, 'call_h1'),
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      clock.advance(30);
      const output = { output: '{"lines":3,"text":"# 标题"}' };
      expect(await store.recordToolResult(run.id, 'call_h1', output)).toEqual({
        applied: true,
        existing: output,
      });
      expect(await store.getToolCall(run.id, 'call_h1')).toMatchObject({
        hostResult: output,
        updatedAt: clock.now(),
      });
      // The same again, or a different one: nothing changes, the first comes back.
      expect(await store.recordToolResult(run.id, 'call_h1', { ...output })).toEqual({
        applied: false,
        existing: output,
      });
      expect(await store.recordToolResult(run.id, 'call_h1', { error: 'ENOENT' })).toEqual({
        applied: false,
        existing: output,
      });
      expect(await store.recordToolResult(run.id, 'call_h2', { error: 'ENOENT' })).toEqual({
        applied: true,
        existing: { error: 'ENOENT' },
      });
      expect((await store.listToolCalls(run.id)).map((call) => call.hostResult)).toEqual([
        output,
        { error: 'ENOENT' },
      ]);
    });

    it('one racing result wins, and a later save never erases it', async () => {
      const { store } = get();
      const { run } = await get().run('paused');
      await store.saveToolCall(hostCall(run.id, 'call_h'));
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, n) => store.recordToolResult(run.id, 'call_h', { output: `${n}` })),
      );
      const winners = outcomes.filter((outcome) => outcome.applied);
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) expect(outcome.existing).toEqual(winners[0]?.existing);
      await store.saveToolCall(hostCall(run.id, 'call_h', { status: 'done', result: 'x' }));
      expect(await store.getToolCall(run.id, 'call_h')).toMatchObject({
        status: 'done',
        hostResult: winners[0]?.existing,
      });
    });

    it('refuses an unknown call, a call that is not a host call, and a malformed result', async () => {
      const { store } = get();
      const { run } = await get().run('paused');
      await store.saveToolCall(hostCall(run.id, 'call_h'));
      await store.saveToolCall(
        hostCall(run.id, 'call_w', { effect: 'write', status: 'awaiting_confirmation' }),
      );
      await expectStoreError(store.recordToolResult(run.id, 'call_nope', { output: 'x' }), 'not_found');
      await expectStoreError(store.recordToolResult('run_nope', 'call_h', { output: 'x' }), 'not_found');
      await expectStoreError(store.recordToolResult(run.id, 'call_w', { output: 'x' }), 'invalid_argument');
      const malformed = [{ output: 'x', error: 'y' }, {}, { output: 42 }] as unknown as { output: string }[];
      for (const result of malformed)
        await expectStoreError(store.recordToolResult(run.id, 'call_h', result), 'invalid_argument');
      expect((await store.getToolCall(run.id, 'call_h'))?.hostResult).toBeUndefined();
      expect((await store.getToolCall(run.id, 'call_w'))?.hostResult).toBeUndefined();
    });
  });
}
