import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineAgent } from '../agent/index.ts';
import { StartupError } from '../server/startup-error.ts';
import { createTestDatabase, postgresForTests } from '../store/postgres/test-support/index.ts';
import { startServer } from './start-server.ts';

const hasPostgres = await postgresForTests();

/** Start-up with settings that cannot work (a model setting, PostgreSQL or Redis not there): one sentence, nothing left half-open. */
describe('startServer with settings that cannot work', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'runstream-startup-'));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  async function startupError(env: Record<string, string>): Promise<StartupError> {
    const error = await startServer(
      { RUNSTREAM_DB: join(directory, 'runstream.db'), PORT: '0', RUNSTREAM_DEMO_TOKEN: 't', ...env },
      () => {},
      { agents: [defineAgent({ id: 'plain', name: 'Plain', instructions: '你是客服。' })] },
    ).then(
      async (server) => {
        await server.close();
        throw new Error('the server started');
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).not.toContain('\n');
    return error as StartupError;
  }

  it('refuses a model setting that cannot work in one line naming the variable, before opening the database', async () => {
    const error = await startupError({
      OPENAI_BASE_URL: 'https://api.deepseek.com',
      OPENAI_API_KEY: 'sk-live-0123456789abcdef',
      RUNSTREAM_MODEL: 'deepseek-v4-flash',
      RUNSTREAM_MODEL_PROVIDER: 'deepsek',
    });
    expect(error.message).toMatch(/^RUNSTREAM_MODEL_PROVIDER="deepsek" is not one of openai, deepseek, /);
    expect(error.message).not.toContain('sk-live');
    expect(existsSync(join(directory, 'runstream.db'))).toBe(false);
  });

  it('refuses an unreachable PostgreSQL in one line, without the password', async () => {
    const error = await startupError({
      RUNSTREAM_DATABASE_URL: 'postgres://runstream:s3cret@127.0.0.1:1/runstream',
    });
    expect(error.message).toMatch(
      /^PostgreSQL at postgres:\/\/runstream:\*\*\*@127\.0\.0\.1:1\/runstream is unreachable/,
    );
    expect(error.message).not.toContain('s3cret');
  });

  it.skipIf(!hasPostgres)('refuses an unreachable Redis in one line', async () => {
    const database = await createTestDatabase('runstream_startup');
    try {
      const error = await startupError({
        RUNSTREAM_DATABASE_URL: database.url,
        RUNSTREAM_REDIS_URL: 'redis://:hunter2@127.0.0.1:1',
      });
      expect(error.message).toMatch(/^Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 is unreachable/);
      expect(error.message).not.toContain('hunter2');
    } finally {
      await database.drop();
    }
  });

  it('refuses Redis without PostgreSQL: instances that share live logs must share their state', async () => {
    const error = await startupError({ RUNSTREAM_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(error.message).toContain('RUNSTREAM_DATABASE_URL');
  });

  it('refuses a lease time that is not a positive integer', async () => {
    const error = await startupError({ RUNSTREAM_LEASE_MS: 'soon' });
    expect(error.message).toContain('RUNSTREAM_LEASE_MS');
  });
});
