import { afterAll, beforeAll } from 'vitest';
import { describeRunStoreConformance } from '../test-support/index.ts';
import { openPostgres } from './postgres-pool.ts';
import { PostgresRunStore } from './postgres-run-store.ts';
import { createTestDatabase, postgresForTests, type TestDatabase } from './test-support/index.ts';

const hasPostgres = await postgresForTests();
let database: TestDatabase | undefined;

beforeAll(async () => {
  if (hasPostgres) database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

// Each test gets its own pool on the file's database, with the tables emptied first, so every test
// starts from a fresh store as it does on memory and SQLite.
describeRunStoreConformance(
  'PostgresRunStore',
  async ({ now }) => {
    if (database === undefined) throw new Error('no test database');
    const pool = await openPostgres(database.url, { max: 4 });
    const store = await PostgresRunStore.open(pool, { now });
    await pool.query('TRUNCATE users, api_tokens, conversations, messages, runs, tool_calls');
    return {
      store,
      close: () => pool.end(),
      // Every row of every table as JSON text: where a token's plaintext must not appear.
      async persistedText() {
        const tables = ['users', 'api_tokens', 'conversations', 'messages', 'runs', 'tool_calls'];
        const parts: string[] = [];
        for (const table of tables) {
          const { rows } = await pool.query<{ row: string }>(
            `SELECT row_to_json(t)::text AS row FROM ${table} t`,
          );
          parts.push(...rows.map((row) => row.row));
        }
        return parts.join('\n');
      },
    };
  },
  { skip: !hasPostgres },
);
