import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyToolPolicies, type ToolCallInfo, type ToolPolicy } from './tool-policy.ts';

const call: ToolCallInfo = {
  runId: 'run_1',
  conversationId: 'conv_1',
  toolCallId: 'call_1',
  name: 'query_order',
  args: { limit: 10 },
  userId: 'usr_1',
  traceId: 'trace-1',
  face: 'chat',
  executor: 'server',
  effect: 'read',
};

const schema = z.object({ limit: z.number().int().max(20) });
const validate = (args: unknown) => {
  const parsed = schema.safeParse(args);
  return parsed.success
    ? { success: true as const, data: parsed.data }
    : { success: false as const, error: z.prettifyError(parsed.error) };
};

const policy = (name: string, check: ToolPolicy['check']): ToolPolicy => ({ name, check });

describe('applyToolPolicies', () => {
  it('allows with no policies, or when all allow', async () => {
    expect(await applyToolPolicies([], call, validate)).toEqual({ decision: 'allow', args: { limit: 10 } });
    expect(
      await applyToolPolicies(
        [policy('a', () => ({ action: 'allow' })), policy('b', async () => ({ action: 'allow' }))],
        call,
        validate,
      ),
    ).toEqual({ decision: 'allow', args: { limit: 10 } });
  });

  it('runs rewrites in order, each validated, the next policy seeing the rewritten arguments', async () => {
    const seen: unknown[] = [];
    const outcome = await applyToolPolicies(
      [
        policy('halve', (info) => ({
          action: 'rewrite',
          args: { limit: (info.args as { limit: number }).limit / 2 },
          reason: 'halved',
        })),
        policy('watch', (info) => {
          seen.push(info.args);
          return { action: 'allow' };
        }),
        policy('plus-one', (info) => ({
          action: 'rewrite',
          args: { limit: (info.args as { limit: number }).limit + 1 },
        })),
      ],
      call,
      validate,
    );
    expect(seen).toEqual([{ limit: 5 }]);
    expect(outcome).toEqual({
      decision: 'rewrite',
      args: { limit: 6 },
      originalArgs: { limit: 10 },
      policy: 'halve, plus-one',
      reason: 'halved',
    });
  });

  it('stops at the first deny, and reports an invalid rewrite', async () => {
    let after = 0;
    expect(
      await applyToolPolicies(
        [
          policy('deny', () => ({ action: 'deny', reason: 'not today' })),
          policy('after', () => {
            after += 1;
            return { action: 'allow' };
          }),
        ],
        call,
        validate,
      ),
    ).toEqual({ decision: 'deny', args: { limit: 10 }, policy: 'deny', reason: 'not today' });
    expect(after).toBe(0);
    const invalid = await applyToolPolicies(
      [policy('big', () => ({ action: 'rewrite', args: { limit: 99 } }))],
      call,
      validate,
    );
    expect(invalid).toMatchObject({
      decision: 'invalid_rewrite',
      args: { limit: 99 },
      originalArgs: { limit: 10 },
      policy: 'big',
      reason: expect.stringContaining('policy big rewrote the arguments'),
    });
  });

  it('fails closed: a policy that throws or answers nonsense denies', async () => {
    expect(
      await applyToolPolicies(
        [policy('boom', () => Promise.reject(new Error('unreachable')))],
        call,
        validate,
      ),
    ).toMatchObject({ decision: 'deny', policy: 'boom', reason: 'policy boom failed: unreachable' });
    expect(
      await applyToolPolicies([policy('odd', () => ({ action: 'maybe' }) as never)], call, validate),
    ).toMatchObject({ decision: 'deny', policy: 'odd' });
    expect(
      await applyToolPolicies([policy('empty', () => undefined as never)], call, validate),
    ).toMatchObject({
      decision: 'deny',
      policy: 'empty',
    });
  });

  it('hands policies a copy: mutating it changes nothing', async () => {
    const args = { limit: 10 };
    const outcome = await applyToolPolicies(
      [
        policy('mutate', (info) => {
          (info.args as { limit: number }).limit = 1_000;
          return { action: 'allow' };
        }),
      ],
      { ...call, args },
      validate,
    );
    expect(outcome).toEqual({ decision: 'allow', args: { limit: 10 } });
    expect(args).toEqual({ limit: 10 });
  });
});
