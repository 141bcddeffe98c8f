import type { Database } from 'better-sqlite3';
import type { RunstreamStore } from '../server/create-runstream.ts';
import { openDatabase, SqliteResponseRecords, SqliteRunStore, SqliteToolAuditLog } from '../store/index.ts';
import { type SqliteKnowledgeOptions, sqliteKnowledge } from './sqlite-knowledge.ts';

/**
 * Everything a runstream keeps, in one SQLite file (created with its folder; WAL, so readers never
 * wait for the writer): users, conversations, messages, runs, tool calls, Responses records, the
 * tool audit log and each agent's knowledge base. One process at a time; for N instances use
 * `postgresStore` from `runstream/postgres` with `redisBus` from `runstream/redis`.
 *
 * `close()` closes the file (when this opened it: give a path). An open `better-sqlite3` database
 * stays its owner's to close.
 */
export function sqliteStore(
  file: string | Database,
  options: SqliteKnowledgeOptions = {},
): RunstreamStore & { readonly database: Database } {
  const owned = typeof file === 'string';
  const database = owned ? openDatabase(file) : file;
  const knowledge = sqliteKnowledge(database, options);
  return {
    database,
    runs: new SqliteRunStore(database),
    responses: new SqliteResponseRecords(database),
    toolAudit: new SqliteToolAuditLog(database),
    knowledge,
    close() {
      if (owned && database.open) database.close();
    },
  };
}
