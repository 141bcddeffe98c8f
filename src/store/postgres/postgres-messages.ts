import type pg from 'pg';
import type { Message } from '../../protocol/index.ts';
import type { StoredMessage } from '../run-store.ts';
import { RunStoreError } from '../run-store-error.ts';
import { fromJson, type MessageRow, toStoredMessage } from '../run-store-rows.ts';
import { assertSameAssistantMessage, newUserMessage, notFound } from '../run-store-rules.ts';
import { inTransaction } from './postgres-pool.ts';

const MESSAGE_COLUMNS = 'id, conversation_id, role, text, client_message_id, run_id, message, created_at';

/**
 * The messages of conversations in PostgreSQL (the user's, and the assistant's as its run saves it),
 * for `PostgresRunStore`, which delegates to it: kept apart to keep the store file under 400 lines,
 * the largest of the three stores; conversations themselves (create, list, rename) stay in the store.
 */
export class PostgresMessages {
  readonly #pool: pg.Pool;
  readonly #now: () => number;

  constructor(pool: pg.Pool, now: () => number) {
    this.#pool = pool;
    this.#now = now;
  }

  async addUserMessage(
    conversationId: string,
    text: string,
    clientMessageId?: string,
  ): Promise<StoredMessage> {
    const message = newUserMessage(conversationId, text, this.#now(), clientMessageId);
    await inTransaction(this.#pool, async (client) => {
      await this.#requireConversation(client, conversationId);
      // A retried POST loses to the first one on the unique index, without aborting the transaction.
      const inserted = await client.query(
        `INSERT INTO messages (id, conversation_id, role, text, client_message_id, created_at, updated_at)
         VALUES ($1, $2, 'user', $3, $4, $5, $5)
         ON CONFLICT (conversation_id, client_message_id) WHERE client_message_id IS NOT NULL DO NOTHING`,
        [message.id, conversationId, text, clientMessageId ?? null, message.createdAt],
      );
      if (inserted.rowCount === 0) {
        const existing = (
          await client.query<{ id: string }>(
            'SELECT id FROM messages WHERE conversation_id = $1 AND client_message_id = $2',
            [conversationId, clientMessageId],
          )
        ).rows[0];
        throw new RunStoreError(
          'duplicate_client_message',
          `conversation ${conversationId} already has message ${existing?.id} for client message ${clientMessageId}`,
          existing === undefined ? {} : { existingId: existing.id },
        );
      }
      await touchConversation(client, conversationId, message.createdAt);
    });
    return message;
  }

  async saveAssistantMessage(
    conversationId: string,
    messageId: string,
    runId: string,
    message: Message,
  ): Promise<void> {
    const now = this.#now();
    const json = JSON.stringify(message);
    await inTransaction(this.#pool, async (client) => {
      await this.#requireConversation(client, conversationId);
      const inserted = await client.query(
        `INSERT INTO messages (id, conversation_id, role, run_id, message, status, last_seq, created_at, updated_at)
         VALUES ($1, $2, 'assistant', $3, $4, $5, $6, $7, $7) ON CONFLICT (id) DO NOTHING`,
        [messageId, conversationId, runId, json, message.status, message.lastSeq, now],
      );
      const moveRun = () =>
        client.query('UPDATE runs SET last_seq = $1, updated_at = $2 WHERE id = $3', [
          message.lastSeq,
          now,
          runId,
        ]);
      if (inserted.rowCount === 1) {
        await touchConversation(client, conversationId, now);
        await moveRun();
        return;
      }
      const existing = (
        await client.query<Pick<MessageRow, 'conversation_id' | 'role' | 'run_id'>>(
          'SELECT conversation_id, role, run_id FROM messages WHERE id = $1 FOR UPDATE',
          [messageId],
        )
      ).rows[0];
      if (existing === undefined) throw notFound('message', messageId);
      assertSameAssistantMessage(
        messageId,
        { conversationId, runId },
        { conversationId: existing.conversation_id, role: existing.role, runId: existing.run_id },
      );
      await client.query(
        'UPDATE messages SET message = $1, status = $2, last_seq = $3, updated_at = $4 WHERE id = $5',
        [json, message.status, message.lastSeq, now, messageId],
      );
      await moveRun();
    });
  }

  async listMessages(conversationId: string): Promise<StoredMessage[]> {
    const { rows } = await this.#pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = $1 ORDER BY ordinal`,
      [conversationId],
    );
    return rows.map(toStoredMessage);
  }

  async getAssistantMessage(messageId: string): Promise<Message | undefined> {
    const { rows } = await this.#pool.query<Pick<MessageRow, 'message'>>(
      "SELECT message FROM messages WHERE id = $1 AND role = 'assistant'",
      [messageId],
    );
    const row = rows[0];
    return row === undefined ? undefined : (fromJson(row.message) as Message | undefined);
  }

  async #requireConversation(client: pg.PoolClient, conversationId: string): Promise<void> {
    const found = await client.query('SELECT 1 FROM conversations WHERE id = $1', [conversationId]);
    if (found.rowCount === 0) throw notFound('conversation', conversationId);
  }
}

async function touchConversation(client: pg.PoolClient, conversationId: string, at: number): Promise<void> {
  await client.query('UPDATE conversations SET updated_at = $1 WHERE id = $2', [at, conversationId]);
}
