import type pg from 'pg';
import { type OpenPostgresOptions, openPostgres } from './postgres-pool.ts';
import { PostgresResponseRecords } from './postgres-response-records.ts';
import { PostgresRunStore } from './postgres-run-store.ts';
import { PostgresToolAuditLog } from './postgres-tool-audit-log.ts';

/** A runstream's state in PostgreSQL: what `createRunstream({ store })` takes. */
export interface PostgresStore {
  readonly pool: pg.Pool;
  readonly runs: PostgresRunStore;
  readonly responses: PostgresResponseRecords;
  readonly toolAudit: PostgresToolAuditLog;
  /** Ends the pool when this opened it (a URL was given); a pool you passed stays yours. */
  close(): Promise<void>;
}

/**
 * Everything a runstream keeps, in PostgreSQL, shared by any number of instances (with `redisBus`
 * from `runstream/redis` for live logs and stops): the schema is migrated under an advisory lock
 * on open, so instances may start together. Agents' knowledge bases are not kept here: pass
 * `knowledge: sqliteKnowledge(file)` from `runstream/node` for agents that have knowledge.
 */
export async function postgresStore(
  connection: string | pg.Pool,
  options: OpenPostgresOptions = {},
): Promise<PostgresStore> {
  const owned = typeof connection === 'string';
  const pool = owned ? await openPostgres(connection, options) : connection;
  try {
    const runs = await PostgresRunStore.open(pool);
    const toolAudit = await PostgresToolAuditLog.open(pool);
    const responses = await PostgresResponseRecords.open(pool);
    let ended = false;
    return {
      pool,
      runs,
      responses,
      toolAudit,
      async close() {
        if (!owned || ended) return;
        ended = true;
        await pool.end();
      },
    };
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    throw error;
  }
}
