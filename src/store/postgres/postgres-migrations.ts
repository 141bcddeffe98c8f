import type pg from 'pg';
import { RunStoreError } from '../run-store-error.ts';
import { inTransaction } from './postgres-pool.ts';

/**
 * One component's schema (the run store, the audit log, an agent's own tables…): each entry is one
 * version, applied in order and never edited once released.
 */
export interface PostgresSchema {
  component: string;
  migrations: readonly string[];
}

/** One key for every component: migrations are rare and short, so they simply take turns. */
const MIGRATION_LOCK_KEY = 0x72756e73; // "runs"

/**
 * Bring `schema` to its latest version. Several instances start at once behind a load balancer, so
 * the version is read and the migrations applied under a transaction-scoped advisory lock: the
 * second instance waits, then finds the work done. DDL is transactional in PostgreSQL, so a
 * migration that fails leaves the previous version intact.
 */
export async function migratePostgres(pool: pg.Pool, schema: PostgresSchema): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS runstream_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)',
    );
    const row = (
      await client.query<{ version: number }>('SELECT version FROM runstream_schema WHERE component = $1', [
        schema.component,
      ])
    ).rows[0];
    const current = row?.version ?? 0;
    if (current > schema.migrations.length)
      throw new RunStoreError(
        'schema_too_new',
        `the ${schema.component} tables are at schema ${current}, newer than this version of runstream knows (${schema.migrations.length})`,
      );
    if (current === schema.migrations.length) return;
    for (const statement of schema.migrations.slice(current)) await client.query(statement);
    await client.query(
      `INSERT INTO runstream_schema (component, version) VALUES ($1, $2)
       ON CONFLICT (component) DO UPDATE SET version = excluded.version`,
      [schema.component, schema.migrations.length],
    );
  });
}
