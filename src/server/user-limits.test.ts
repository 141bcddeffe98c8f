import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../models/index.ts';
import { RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import { openDatabase, SqliteResponseRecords, SqliteRunStore } from '../store/index.ts';
import { createApp } from './create-app.ts';
import { HttpError } from './http-error.ts';
import { RUN_LIMIT_RETRY_AFTER_SECONDS, UserLimits, userLimitsFromEnv } from './user-limits.ts';

function refusal(action: () => unknown): HttpError {
  try {
    action();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('UserLimits: requests', () => {
  it('lets a burst of ten seconds’ worth through, then refuses with the wait until the next one', () => {
    let now = 0;
    const limits = new UserLimits({ requestsPerMinute: 60, now: () => now });
    for (let request = 0; request < 10; request += 1) limits.takeRequest('usr_ada');
    const refused = refusal(() => limits.takeRequest('usr_ada'));
    expect([refused.status, refused.code, refused.headers['retry-after']]).toEqual([
      429,
      'rate_limited',
      '1',
    ]);
    expect(refused.details).toEqual({ retryAfterMs: 1000 });
    expect(refused.message).toContain('60 per minute');
    // Another user has a bucket of their own.
    limits.takeRequest('usr_bob');
    // One request a second comes back.
    now += 999;
    expect(refusal(() => limits.takeRequest('usr_ada')).details).toEqual({ retryAfterMs: 1 });
    now += 1;
    limits.takeRequest('usr_ada');
    expect(() => limits.takeRequest('usr_ada')).toThrow(HttpError);
  });

  it('asks a longer wait of a slower limit, in whole seconds', () => {
    const limits = new UserLimits({ requestsPerMinute: 6, now: () => 0 });
    limits.takeRequest('usr_ada');
    const refused = refusal(() => limits.takeRequest('usr_ada'));
    expect(refused.headers['retry-after']).toBe('10');
  });

  it('forgets users whose bucket has refilled, so idle users cost no memory', () => {
    let now = 0;
    const limits = new UserLimits({ requestsPerMinute: 60_000, now: () => now });
    for (let user = 0; user < 3000; user += 1) limits.takeRequest(`usr_${user}`);
    expect(limits.trackedUsers).toBeGreaterThan(2000);
    now += 60_000;
    for (let request = 0; request < 1024; request += 1) limits.takeRequest('usr_busy');
    expect(limits.trackedUsers).toBeLessThan(10);
  });

  it('is off at 0, and refuses a bad setting', () => {
    const limits = new UserLimits({ requestsPerMinute: 0, now: () => 0 });
    for (let request = 0; request < 10_000; request += 1) limits.takeRequest('usr_ada');
    expect(() => new UserLimits({ requestsPerMinute: -1 })).toThrow(RangeError);
    expect(() => new UserLimits({ maxRunningRuns: 1.5 })).toThrow(RangeError);
    expect(() => userLimitsFromEnv({ RUNSTREAM_RATE_LIMIT: 'lots' })).toThrow(/RUNSTREAM_RATE_LIMIT/);
    expect(() => userLimitsFromEnv({ RUNSTREAM_MAX_RUNNING_RUNS: '-3' })).toThrow(
      /RUNSTREAM_MAX_RUNNING_RUNS/,
    );
  });
});

describe('UserLimits: running runs', () => {
  it('starts a run under the cap and refuses one at it, with Retry-After', async () => {
    const limits = new UserLimits({ maxRunningRuns: 2 });
    expect(
      await limits.startRun(
        'usr_ada',
        async () => 1,
        async () => 'started',
      ),
    ).toBe('started');
    const refused = await limits
      .startRun(
        'usr_ada',
        async () => 2,
        async (): Promise<unknown> => 'started',
      )
      .then(() => new HttpError(200, 'started', 'it started'))
      .catch((error: unknown) => error as HttpError);
    expect(refused).toBeInstanceOf(HttpError);
    expect([refused.status, refused.code, refused.headers['retry-after'], refused.details]).toEqual([
      429,
      'too_many_runs',
      String(RUN_LIMIT_RETRY_AFTER_SECONDS),
      { running: 2, limit: 2 },
    ]);
  });

  it('takes one user’s starts one at a time: of 10 racing starts under a cap of 3, exactly 3 start', async () => {
    const limits = new UserLimits({ maxRunningRuns: 3 });
    let running = 0;
    const count = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return running;
    };
    const start = async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      running += 1;
      return running;
    };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => limits.startRun('usr_ada', count, start)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect(running).toBe(3);
    // A failed start does not block the next one, and another user is not held up by this one.
    running = 0;
    await expect(
      limits.startRun('usr_bob', count, async () => {
        throw new Error('the store is down');
      }),
    ).rejects.toThrow('the store is down');
    expect(await limits.startRun('usr_bob', count, start)).toBe(1);
  });
});

describe('per-user limits over HTTP', () => {
  let directory: string;
  let database: Database;
  let close: () => Promise<void> = async () => {};

  afterEach(async () => {
    await close();
    database?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  async function serveWithLimits(limits: UserLimits, turns: number) {
    directory = mkdtempSync(join(tmpdir(), 'runstream-limits-'));
    database = openDatabase(join(directory, 'runstream.db'));
    const store = new SqliteRunStore(database);
    const ada = await store.createUser('ada');
    const bob = await store.createUser('bob');
    const tokens = { ada: await store.issueToken(ada.id), bob: await store.issueToken(bob.id) };
    // Each answer streams for about half a second: long enough to be running when the next comes.
    const model = new ScriptedChatModel(
      Array.from({ length: turns }, () => ({
        parts: textTurn(['答', '复', '完', '毕', '了']),
        delayMs: 100,
      })),
    );
    const runs = new RunManager({
      agents: [testAgent({ model, tools: [], skills: [], instructions: '你是客服。' })],
      store,
    });
    const app = createApp({
      store,
      runs,
      limits,
      responses: { records: new SqliteResponseRecords(database) },
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      await runs.close();
      await new Promise((resolve) => server.close(resolve));
    };
    const api = (token: string, path: string, init: RequestInit = {}) =>
      fetch(`${baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
    return { store, ada, tokens, api };
  }

  it('answers 429 too_many_runs at the cap, stores nothing for the refused message, and starts once a run ends', async () => {
    const { store, ada, tokens, api } = await serveWithLimits(new UserLimits({ maxRunningRuns: 1 }), 3);
    const conversation = async () =>
      (
        (await (await api(tokens.ada, '/v1/conversations', { method: 'POST', body: '{}' })).json()) as {
          id: string;
        }
      ).id;
    const [first, second] = [await conversation(), await conversation()];
    const running = await api(tokens.ada, `/v1/conversations/${first}/messages`, {
      method: 'POST',
      body: '{"text":"第一个问题"}',
    });
    expect(running.status).toBe(200);
    const refused = await api(tokens.ada, `/v1/conversations/${second}/messages`, {
      method: 'POST',
      body: '{"text":"第二个问题"}',
    });
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '5']);
    expect(await refused.json()).toEqual({
      error: {
        code: 'too_many_runs',
        message: expect.stringContaining('at most 1 at once'),
        running: 1,
        limit: 1,
      },
    });
    expect(await store.listMessages(second)).toEqual([]);
    // A response of the Responses API is a run under the same cap, and leaves no conversation behind.
    const before = (await store.listConversations(ada.id)).length;
    const response = await api(tokens.ada, '/v1/responses', { method: 'POST', body: '{"input":"你好"}' });
    expect([response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
      429,
      'too_many_runs',
    ]);
    expect((await store.listConversations(ada.id)).length).toBe(before);

    await running.text();
    const later = await api(tokens.ada, `/v1/conversations/${second}/messages`, {
      method: 'POST',
      body: '{"text":"第二个问题"}',
    });
    expect(later.status).toBe(200);
    expect(await later.text()).toMatch(/event: run\.finished\ndata: .*"status":"completed"/);
  });

  it('answers 429 rate_limited with Retry-After past the burst, per user', async () => {
    const { tokens, api } = await serveWithLimits(new UserLimits({ requestsPerMinute: 30 }), 0);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let request = 0; request < 8; request += 1) {
      const response = await api(tokens.ada, '/v1/conversations');
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.text();
    }
    // 30 a minute: a burst of 5, then one every 2 s.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    if (limited === undefined) throw new Error('expected a 429');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect((await api(tokens.bob, '/v1/conversations')).status).toBe(200);
    // No token, no bucket: a 401 is not counted against anyone.
    expect((await api('rs_wrong', '/v1/conversations')).status).toBe(401);
  });
});
