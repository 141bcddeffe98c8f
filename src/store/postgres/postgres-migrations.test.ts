import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactUrl } from '../../shared/index.ts';
import { isRunStoreError } from '../run-store-error.ts';
import { migratePostgres, type PostgresSchema } from './postgres-migrations.ts';
import { openPostgres } from './postgres-pool.ts';
import { PostgresRunStore } from './postgres-run-store.ts';
import { POSTGRES_RUN_STORE_SCHEMA } from './postgres-run-store-schema.ts';
import { createTestDatabase, postgresForTests, type TestDatabase } from './test-support/index.ts';

const hasPostgres = await postgresForTests();

describe.skipIf(!hasPostgres)('PostgreSQL migrations', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase('runstream_migrate');
  });
  afterEach(async () => {
    await database.drop();
  });

  it('migrate once when six instances start at the same moment', async () => {
    const pools = await Promise.all(Array.from({ length: 6 }, () => openPostgres(database.url, { max: 1 })));
    try {
      const counting: PostgresSchema = {
        component: 'counting',
        migrations: [
          'CREATE TABLE applied (n INTEGER NOT NULL)',
          'INSERT INTO applied (n) VALUES (1)',
          'INSERT INTO applied (n) VALUES (2)',
        ],
      };
      await Promise.all(pools.map((pool) => migratePostgres(pool, counting)));
      await Promise.all(pools.map((pool) => migratePostgres(pool, POSTGRES_RUN_STORE_SCHEMA)));
      const [first] = pools;
      if (first === undefined) throw new Error('no pool');
      // Each migration ran exactly once, and each component records its own version.
      expect((await first.query('SELECT n FROM applied ORDER BY n')).rows).toEqual([{ n: 1 }, { n: 2 }]);
      expect(
        (await first.query('SELECT component, version FROM runstream_schema ORDER BY component')).rows,
      ).toEqual([
        { component: 'counting', version: 3 },
        { component: 'run_store', version: POSTGRES_RUN_STORE_SCHEMA.migrations.length },
      ]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('applies only the versions a database lacks, and leaves it intact when one fails', async () => {
    const pool = await openPostgres(database.url, { max: 1 });
    try {
      const v1: PostgresSchema = { component: 'growing', migrations: ['CREATE TABLE items (id INTEGER)'] };
      await migratePostgres(pool, v1);
      await pool.query('INSERT INTO items (id) VALUES (7)');
      const broken: PostgresSchema = {
        component: 'growing',
        migrations: [...v1.migrations, 'ALTER TABLE items ADD COLUMN name TEXT', 'SELECT no_such_function()'],
      };
      await expect(migratePostgres(pool, broken)).rejects.toThrow(/no_such_function/);
      // The failed attempt rolled back whole: version 1, no new column, the row still there.
      expect(
        (await pool.query("SELECT version FROM runstream_schema WHERE component = 'growing'")).rows,
      ).toEqual([{ version: 1 }]);
      expect((await pool.query('SELECT * FROM items')).rows).toEqual([{ id: 7 }]);
      await migratePostgres(pool, { component: 'growing', migrations: broken.migrations.slice(0, 2) });
      expect((await pool.query('SELECT * FROM items')).rows).toEqual([{ id: 7, name: null }]);
    } finally {
      await pool.end();
    }
  });

  it('brings a database of the schema before agents up to date: old conversations default, old runs null', async () => {
    const pool = await openPostgres(database.url, { max: 2 });
    try {
      // Version 2 is the last run-store schema released before conversations and runs named their agent.
      await migratePostgres(pool, {
        component: POSTGRES_RUN_STORE_SCHEMA.component,
        migrations: POSTGRES_RUN_STORE_SCHEMA.migrations.slice(0, 2),
      });
      await pool.query(`INSERT INTO users VALUES ('usr_old', 'Old', 1);
        INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES ('conv_old', 'usr_old', '旧对话', 1, 2);
        INSERT INTO runs (id, conversation_id, message_id, user_id, status, last_seq, created_at, updated_at)
          VALUES ('run_old', 'conv_old', 'msg_old', 'usr_old', 'completed', 7, 1, 2);`);

      const store = await PostgresRunStore.open(pool);
      expect(
        (await pool.query("SELECT version FROM runstream_schema WHERE component = 'run_store'")).rows,
      ).toEqual([{ version: POSTGRES_RUN_STORE_SCHEMA.migrations.length }]);
      const old = {
        id: 'conv_old',
        userId: 'usr_old',
        agentId: '',
        title: '旧对话',
        createdAt: 1,
        updatedAt: 2,
      };
      expect(await store.getConversation('conv_old')).toEqual(old);
      expect(await store.listConversations('usr_old', { agentId: '' })).toEqual([old]);
      expect(await store.getRun('run_old')).toMatchObject({
        status: 'completed',
        lastSeq: 7,
        agentId: null,
        agentRevision: null,
      });
      const repair = await store.createConversation('usr_old', 'repair', { agentId: 'homefix' });
      const run = await store.createRun({
        id: 'run_new',
        conversationId: repair.id,
        messageId: 'msg_new',
        userId: 'usr_old',
        status: 'running',
        cancelReason: null,
        lastSeq: 0,
        leaseOwner: null,
        leaseExpiresAt: null,
        agentId: 'homefix',
        agentRevision: 'rev-1',
      });
      expect(await store.getRun(run.id)).toEqual(run);
      expect(await store.listConversations('usr_old', { agentId: 'homefix' })).toEqual([repair]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a database migrated by a newer runstream', async () => {
    const pool = await openPostgres(database.url, { max: 1 });
    try {
      await migratePostgres(pool, { component: 'future', migrations: ['SELECT 1', 'SELECT 2'] });
      const error = await migratePostgres(pool, { component: 'future', migrations: ['SELECT 1'] }).catch(
        (caught: unknown) => caught,
      );
      expect(isRunStoreError(error, 'schema_too_new')).toBe(true);
    } finally {
      await pool.end();
    }
  });
});

describe('openPostgres', () => {
  it('fails at once with one line naming the server, without the password, when nothing listens', async () => {
    const error = (await openPostgres('postgres://runstream:s3cret@127.0.0.1:1/runstream', {
      connectTimeoutMs: 2000,
    }).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(
      /^PostgreSQL at postgres:\/\/runstream:\*\*\*@127\.0\.0\.1:1\/runstream is unreachable: /,
    );
    expect(error.message).not.toContain('s3cret');
    expect(error.message).not.toContain('\n');
  });

  it('redacts passwords and survives unparsable URLs', () => {
    expect(redactUrl('postgres://u:p@h:5432/d')).toBe('postgres://u:***@h:5432/d');
    expect(redactUrl('postgres://h/d')).toBe('postgres://h/d');
    expect(redactUrl('not a url')).toBe('(an unparsable URL)');
  });
});
