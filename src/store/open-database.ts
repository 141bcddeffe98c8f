import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';

/** Where the product keeps its one SQLite file unless `RUNSTREAM_DB` says otherwise. */
export const DEFAULT_DATABASE_PATH = './data/runstream.db';

export function databasePathFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.RUNSTREAM_DB ?? DEFAULT_DATABASE_PATH);
}

/**
 * Open (creating if needed) the product's SQLite file: WAL so readers never wait for the writer, a
 * busy timeout so a second process (the CLI next to the server) waits instead of failing, and
 * foreign keys on, which SQLite leaves off by default.
 */
export function openDatabase(path: string): Database.Database {
  const SqliteDatabase = loadBetterSqlite3();
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  return database;
}

let betterSqlite3: typeof Database | undefined;

/**
 * better-sqlite3's `Database` class. It is an optional peer (a native addon), loaded on the first
 * database opened, so an app that stores elsewhere, or only uses the client, never needs it installed.
 */
export function loadBetterSqlite3(): typeof Database {
  if (betterSqlite3 !== undefined) return betterSqlite3;
  try {
    betterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' ||
      !String(error).includes("'better-sqlite3'")
    )
      throw error;
    throw new Error(
      'the SQLite store needs the optional package better-sqlite3: install it with `npm install better-sqlite3`',
      { cause: error },
    );
  }
  return betterSqlite3;
}
