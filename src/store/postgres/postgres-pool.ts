import type pg from 'pg';
import { redactUrl } from '../../shared/index.ts';

/**
 * PostgreSQL returns BIGINT (epoch milliseconds, ordinals) as strings by default, since it can
 * exceed 2^53; every BIGINT the store writes is a timestamp, a seq or a count, far below that.
 * Scoped to the store's pools instead of pg's global parsers, so an embedder's pg is unaffected.
 */
function storeTypes(types: typeof pg.types): pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === types.builtins.INT8) return (value: string) => Number(value);
      return types.getTypeParser(oid, format);
    },
  } as unknown as pg.CustomTypesConfig;
}

/** pg is an optional peer: loaded when the first pool opens, so only PostgreSQL users install it. */
async function loadPg(): Promise<typeof pg> {
  try {
    return (await import('pg')).default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || !String(error).includes("'pg'"))
      throw error;
    throw new Error('the PostgreSQL store needs the optional package pg: install it with `npm install pg`', {
      cause: error,
    });
  }
}

export interface OpenPostgresOptions {
  /** Connections in the pool. Default 10. */
  max?: number;
  /** How long to wait for the first connection before giving up. Default 5,000 ms. */
  connectTimeoutMs?: number;
}

/** A pool on `url`, checked with one round trip so a wrong URL fails at start, not at first use. */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<pg.Pool> {
  const { Pool, types } = await loadPg();
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    types: storeTypes(types),
  });
  // An idle client that loses its connection (a PostgreSQL restart) emits on the pool; without a
  // listener that would crash the process. The next query gets a fresh connection.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`PostgreSQL at ${redactUrl(url)} is unreachable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return pool;
}

/** Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** pg's error for a unique, check or foreign-key violation, by SQLSTATE. */
export function isPostgresError(error: unknown, sqlState: string, constraint?: string): boolean {
  const candidate = error as { code?: unknown; constraint?: unknown };
  return candidate?.code === sqlState && (constraint === undefined || candidate.constraint === constraint);
}

export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';
