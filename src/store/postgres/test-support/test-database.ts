import pg from 'pg';

/**
 * The server the tests create their databases on: `RUNSTREAM_TEST_POSTGRES_URL`, else the
 * machine's PostgreSQL (127.0.0.1:5432, user postgres, trust auth, database `test`).
 */
export const TEST_POSTGRES_URL =
  process.env.RUNSTREAM_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Whether the test server answers; probed once per test file. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A database of its own for one test file (or one test), so parallel runs never collide; `drop`
 * removes it, closing whatever connections a crashed test left behind.
 */
export async function createTestDatabase(prefix = 'runstream_test'): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Whether the PostgreSQL tests can run here. A machine without PostgreSQL (a laptop after
 * `npm install`) skips them with a warning; CI sets `RUNSTREAM_REQUIRE_SERVICES=1`, where an
 * unreachable server fails the run instead of skipping silently.
 */
export async function postgresForTests(): Promise<boolean> {
  if (await postgresAvailable()) return true;
  const message = `PostgreSQL is unreachable at ${TEST_POSTGRES_URL}`;
  if (process.env.RUNSTREAM_REQUIRE_SERVICES)
    throw new Error(`${message}, and RUNSTREAM_REQUIRE_SERVICES is set`);
  console.warn(`${message}: skipping the PostgreSQL tests (set RUNSTREAM_TEST_POSTGRES_URL to run them)`);
  return false;
}
