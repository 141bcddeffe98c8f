import type { PostgresSchema } from './postgres-migrations.ts';

/**
 * The run store's tables on PostgreSQL, the same shape as the SQLite ones: timestamps are epoch
 * milliseconds (BIGINT); JSON columns are TEXT holding exactly the JSON the store wrote (JSONB
 * would reorder keys and refuse \u0000, and nothing queries inside them); `ordinal` gives every row
 * a creation order that survives equal timestamps. The partial unique index is what
 * allows one active run per conversation across every instance.
 */
export const POSTGRES_RUN_STORE_SCHEMA: PostgresSchema = {
  component: 'run_store',
  migrations: [
    `CREATE TABLE users (
       id TEXT PRIMARY KEY,
       name TEXT NOT NULL,
       created_at BIGINT NOT NULL
     );
     CREATE TABLE api_tokens (
       token_hash TEXT PRIMARY KEY,
       user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
       label TEXT,
       created_at BIGINT NOT NULL
     );
     CREATE INDEX api_tokens_by_user ON api_tokens(user_id);
     CREATE TABLE conversations (
       ordinal BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       id TEXT NOT NULL UNIQUE,
       user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
       title TEXT NOT NULL,
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL
     );
     CREATE INDEX conversations_by_user ON conversations(user_id, updated_at);
     CREATE TABLE messages (
       ordinal BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       id TEXT NOT NULL UNIQUE,
       conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
       role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
       text TEXT,
       client_message_id TEXT,
       run_id TEXT,
       message TEXT,
       status TEXT,
       last_seq INTEGER,
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL,
       CHECK (role = 'assistant' OR text IS NOT NULL),
       CHECK (role = 'user' OR (run_id IS NOT NULL AND message IS NOT NULL))
     );
     CREATE INDEX messages_by_conversation ON messages(conversation_id, ordinal);
     CREATE UNIQUE INDEX messages_by_client_id ON messages(conversation_id, client_message_id)
       WHERE client_message_id IS NOT NULL;
     CREATE TABLE runs (
       ordinal BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       id TEXT NOT NULL UNIQUE,
       conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
       message_id TEXT NOT NULL,
       user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
       status TEXT NOT NULL,
       cancel_reason TEXT,
       last_seq INTEGER NOT NULL,
       lease_owner TEXT,
       lease_expires_at BIGINT,
       stop_requested TEXT,
       checkpoint TEXT,
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL
     );
     CREATE INDEX runs_by_status ON runs(status, ordinal);
     CREATE UNIQUE INDEX runs_one_active_per_conversation ON runs(conversation_id)
       WHERE status IN ('running', 'paused');
     CREATE TABLE tool_calls (
       ordinal BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
       tool_call_id TEXT NOT NULL,
       name TEXT NOT NULL,
       args TEXT,
       effect TEXT NOT NULL,
       status TEXT NOT NULL,
       decision TEXT,
       executed BOOLEAN NOT NULL DEFAULT FALSE,
       result TEXT,
       error TEXT,
       host_result TEXT,
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL,
       UNIQUE (run_id, tool_call_id)
     );`,
    // A stateless Responses client names the call it answers, not the run (findOpenHostCalls).
    'CREATE INDEX tool_calls_by_call_id ON tool_calls(tool_call_id);',
    // Conversations belong to an agent ('' is the server's default, which older ones follow); runs
    // record the agent and the revision of its definition they ran (NULL for runs from before).
    `ALTER TABLE conversations ADD COLUMN agent_id TEXT NOT NULL DEFAULT '';
     ALTER TABLE runs ADD COLUMN agent_id TEXT, ADD COLUMN agent_revision TEXT;`,
  ],
};
