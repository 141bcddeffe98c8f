import type { Database } from 'better-sqlite3';
import { RunStoreError } from './run-store-error.ts';

/**
 * Each entry is one schema version of the store's tables; `store_schema` records how many were
 * applied. The store shares the product's SQLite file with the knowledge tables (`kb_*`, migrated by
 * the retrieval layer with its own `kb_schema`), so neither side touches the other's tables.
 *
 * `ordinal` columns give every row a creation order that survives equal timestamps and clock steps.
 * Enum-like columns have no CHECK: a new status would otherwise need a table rebuild in SQLite.
 */
export const RUN_STORE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE users (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE api_tokens (
     token_hash TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     label TEXT,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX api_tokens_by_user ON api_tokens(user_id);
   CREATE TABLE conversations (
     ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     title TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX conversations_by_user ON conversations(user_id, updated_at);
   CREATE TABLE messages (
     ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
     text TEXT,
     client_message_id TEXT,
     run_id TEXT,
     message TEXT,
     status TEXT,
     last_seq INTEGER,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     CHECK (role = 'assistant' OR text IS NOT NULL),
     CHECK (role = 'user' OR (run_id IS NOT NULL AND message IS NOT NULL))
   );
   CREATE INDEX messages_by_conversation ON messages(conversation_id, ordinal);
   CREATE UNIQUE INDEX messages_by_client_id ON messages(conversation_id, client_message_id)
     WHERE client_message_id IS NOT NULL;
   CREATE TABLE runs (
     ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
     message_id TEXT NOT NULL,
     user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     status TEXT NOT NULL,
     cancel_reason TEXT,
     last_seq INTEGER NOT NULL,
     lease_owner TEXT,
     lease_expires_at INTEGER,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX runs_by_status ON runs(status, ordinal);
   CREATE UNIQUE INDEX runs_one_active_per_conversation ON runs(conversation_id)
     WHERE status IN ('running', 'paused');
   CREATE TABLE tool_calls (
     ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
     run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
     tool_call_id TEXT NOT NULL,
     name TEXT NOT NULL,
     args TEXT,
     effect TEXT NOT NULL,
     status TEXT NOT NULL,
     decision TEXT,
     executed INTEGER NOT NULL DEFAULT 0 CHECK (executed IN (0, 1)),
     result TEXT,
     error TEXT,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     UNIQUE (run_id, tool_call_id)
   );`,
  // The runtime's resume state of a paused run, read only when it resumes.
  'ALTER TABLE runs ADD COLUMN checkpoint TEXT;',
  // A host tool call's submitted result, written once by `recordToolResult` (never by saveToolCall).
  'ALTER TABLE tool_calls ADD COLUMN host_result TEXT;',
  // A stop asked for on an instance that does not drive the run, for its owner to apply.
  'ALTER TABLE runs ADD COLUMN stop_requested TEXT;',
  // A stateless Responses client names the call it answers, not the run (findOpenHostCalls).
  'CREATE INDEX tool_calls_by_call_id ON tool_calls(tool_call_id);',
  // Conversations belong to an agent; '' is the server's default, which older conversations follow.
  "ALTER TABLE conversations ADD COLUMN agent_id TEXT NOT NULL DEFAULT '';",
  // The agent and the revision of its definition a run ran; NULL for runs from before.
  'ALTER TABLE runs ADD COLUMN agent_id TEXT; ALTER TABLE runs ADD COLUMN agent_revision TEXT;',
];

/**
 * Bring the store's tables to the latest schema. Safe to call on every start-up and from several
 * processes at once: the version is read inside an IMMEDIATE transaction, which holds the write lock,
 * so a second process waits (busy_timeout) and then finds the work done.
 */
export function migrateRunStore(database: Database): void {
  database
    .transaction(() => {
      database.exec('CREATE TABLE IF NOT EXISTS store_schema (version INTEGER NOT NULL)');
      const row = database.prepare('SELECT version FROM store_schema').get() as
        | { version: number }
        | undefined;
      const current = row?.version ?? 0;
      if (current > RUN_STORE_MIGRATIONS.length) {
        throw new RunStoreError(
          'schema_too_new',
          `the store tables are at schema ${current}, newer than this version of runstream knows (${RUN_STORE_MIGRATIONS.length})`,
        );
      }
      if (current === RUN_STORE_MIGRATIONS.length && row !== undefined) return;
      for (const statement of RUN_STORE_MIGRATIONS.slice(current)) database.exec(statement);
      if (row === undefined)
        database.prepare('INSERT INTO store_schema (version) VALUES (?)').run(RUN_STORE_MIGRATIONS.length);
      else database.prepare('UPDATE store_schema SET version = ?').run(RUN_STORE_MIGRATIONS.length);
    })
    .immediate();
}
