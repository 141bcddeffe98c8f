import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';

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
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  return database;
}
