import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/test-support/start-test-server.ts';
import {
  createTestDatabase,
  postgresAvailable,
  type TestDatabase,
} from '../store/postgres/test-support/index.ts';
import { type CommandResult, runCommand, runCommandProcess } from './test-support/run-command.ts';

let directory: string;

/** `runstream users …` with these variables, in this process (the smoke test starts the real one). */
async function runstream(env: Record<string, string>, ...args: string[]): Promise<CommandResult> {
  return runCommand(['users', ...args], { env: { RUNSTREAM_DATABASE_URL: undefined, ...env } });
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-users-'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The whole life of two users and their tokens through the command, on whichever store `env` names. */
async function exerciseUsers(env: Record<string, string>): Promise<{
  ada: string;
  bob: string;
  adaToken: string;
  bobToken: string;
  adaTokenId: string;
}> {
  const added = await runstream(env, 'add', 'Ada', 'Lovelace');
  expect(added.code).toBe(0);
  const ada = added.stdout.trim();
  expect(ada).toMatch(/^usr_[0-9a-f]{32}$/);
  expect((await runstream(env, 'add', 'Bob', '--id', 'usr_bob')).stdout.trim()).toBe('usr_bob');
  const taken = await runstream(env, 'add', 'Another Bob', '--id', 'usr_bob');
  expect([taken.code, taken.stderr]).toEqual([1, expect.stringContaining('usr_bob already exists')]);

  const created = await runstream(env, 'token', 'create', ada, '--label', 'laptop');
  expect(created.code).toBe(0);
  const adaToken = created.stdout.trim();
  expect(adaToken).toMatch(/^rs_[A-Za-z0-9_-]{43}$/);
  const bobToken = (await runstream(env, 'token', 'create', 'usr_bob')).stdout.trim();
  const unknown = await runstream(env, 'token', 'create', 'usr_nobody');
  expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('no user usr_nobody')]);

  const listed = await runstream(env, 'list');
  expect(listed.stdout).toMatch(new RegExp(`^${ada}\\tAda Lovelace\\t\\S+\\t1 token\\(s\\)$`, 'm'));
  expect(listed.stdout).toMatch(/^usr_bob\tBob\t\S+\t1 token\(s\)$/m);
  const tokens = await runstream(env, 'token', 'list', ada);
  const [line, ...others] = tokens.stdout.trim().split('\n');
  expect(others).toEqual([]);
  expect(line).toMatch(/^tok_[0-9a-f]{16}\tlaptop\t\S+$/);
  // The token is shown once, at creation: never in a list.
  expect(tokens.stdout + listed.stdout).not.toContain(adaToken);
  return { ada, bob: 'usr_bob', adaToken, bobToken, adaTokenId: line?.split('\t')[0] ?? '' };
}

describe('runstream users', () => {
  it('adds users and tokens an operator hands out; the server takes them, keeps tenants apart, and drops a revoked one', async () => {
    const env = { RUNSTREAM_DB: join(directory, 'runstream.db') };
    const { adaToken, bobToken, adaTokenId } = await exerciseUsers(env);

    // The server an operator starts on the same file, with its log kept to look for the tokens.
    const logged: string[] = [];
    let server: TestServer | undefined;
    try {
      server = await startTestServer({
        env: { ...env, RUNSTREAM_DATABASE_URL: undefined, RUNSTREAM_DEMO_LOGIN: 'off' },
        log: (line) => logged.push(JSON.stringify(line)),
      });
      const api = (path: string, token: string, init: RequestInit = {}) =>
        fetch(`${server?.server.url}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
      const created = await api('/v1/conversations', adaToken, { method: 'POST', body: '{}' });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await api(`/v1/conversations/${id}`, adaToken)).status).toBe(200);
      // Bob's token works, and Ada's conversation does not exist for him.
      expect((await api('/v1/conversations', bobToken)).status).toBe(200);
      expect((await api(`/v1/conversations/${id}`, bobToken)).status).toBe(404);
      const message = await api(`/v1/conversations/${id}/messages`, bobToken, {
        method: 'POST',
        body: '{"text":"hi"}',
      });
      expect(message.status).toBe(404);

      const revoked = await runstream(env, 'token', 'revoke', adaTokenId);
      expect([revoked.code, revoked.stdout.trim()]).toEqual([0, `revoked ${adaTokenId}`]);
      expect((await api(`/v1/conversations/${id}`, adaToken)).status).toBe(401);
      expect((await api('/v1/conversations', bobToken)).status).toBe(200);
      // No token ever reaches the server's log.
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.join('\n')).not.toContain(adaToken);
      expect(logged.join('\n')).not.toContain(bobToken);
    } finally {
      await server?.close();
    }
    const again = await runstream(env, 'token', 'revoke', adaTokenId);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining(`no token ${adaTokenId}`)]);
  }, 120_000);

  it('refuses a wrong call with the usage and exit code 2, before opening the store', async () => {
    const env = { RUNSTREAM_DB: join(directory, 'never-created', 'runstream.db') };
    for (const args of [
      [],
      ['add'],
      ['remove', 'x'],
      ['token', 'create'],
      ['token', 'burn', 'x'],
      ['add', 'Ada', '--id', 'ada'],
    ]) {
      const result = await runstream(env, ...args);
      expect([args, result.code]).toEqual([args, 2]);
      expect(result.stderr).toContain('runstream users token revoke <token-id>');
    }
    expect(existsSync(join(directory, 'never-created'))).toBe(false);
  });

  it('adds a user and lists it from a process of its own, as an operator types it', async () => {
    const env = { RUNSTREAM_DATABASE_URL: '', RUNSTREAM_DB: join(directory, 'process.db') };
    const added = await runCommandProcess(['users', 'add', 'Grace', 'Hopper'], { env });
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^usr_[0-9a-f]{32}\n$/);
    expect((await runstream(env, 'list')).stdout).toMatch(
      /^usr_[0-9a-f]{32}\tGrace Hopper\t\S+\t0 token\(s\)$/m,
    );
  }, 60_000);
});

const requireServices = process.env.RUNSTREAM_REQUIRE_SERVICES === '1';
const postgres = requireServices || (await postgresAvailable());

describe.skipIf(!postgres)('runstream users on PostgreSQL (RUNSTREAM_DATABASE_URL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('runstream_users');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('manages the users of the shared state, as the servers see them', async () => {
    const env = { RUNSTREAM_DATABASE_URL: database.url, RUNSTREAM_DB: join(directory, 'unused.db') };
    const { adaTokenId } = await exerciseUsers(env);
    expect((await runstream(env, 'token', 'revoke', adaTokenId)).code).toBe(0);
    expect((await runstream(env, 'list')).stdout).toMatch(/\tAda Lovelace\t\S+\t0 token\(s\)$/m);
  }, 60_000);
});
