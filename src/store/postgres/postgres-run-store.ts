import type pg from 'pg';
import type { Message } from '../../protocol/index.ts';
import { createId } from '../ids.ts';
import type {
  Conversation,
  ConversationFilter,
  Decision,
  HostToolResult,
  NewConversationOptions,
  NewRun,
  RunCondition,
  RunPatch,
  RunRecord,
  RunStatus,
  RunStore,
  StoredMessage,
  TokenInfo,
  ToolCallRecord,
  User,
} from '../run-store.ts';
import { RunStoreError } from '../run-store-error.ts';
import {
  CONVERSATION_COLUMNS,
  type ConversationRow,
  fromJson,
  type RunRow,
  toConversation,
  toJson,
  toRunRecord,
} from '../run-store-rows.ts';
import { activeRunExists, newRunRecord, notFound } from '../run-store-rules.ts';
import { PostgresMessages } from './postgres-messages.ts';
import { migratePostgres } from './postgres-migrations.ts';
import { FOREIGN_KEY_VIOLATION, isPostgresError, UNIQUE_VIOLATION } from './postgres-pool.ts';
import { POSTGRES_RUN_STORE_SCHEMA } from './postgres-run-store-schema.ts';
import { PostgresToolCalls } from './postgres-tool-calls.ts';
import { PostgresUsers } from './postgres-users.ts';

const RUN_COLUMNS =
  'id, conversation_id, message_id, user_id, status, cancel_reason, last_seq, lease_owner, lease_expires_at, stop_requested, agent_id, agent_revision, created_at, updated_at';
const ONE_ACTIVE_RUN = 'runs_one_active_per_conversation';

/** Which `RunRecord` field each patchable column holds. */
const RUN_PATCH_COLUMNS = {
  status: 'status',
  cancelReason: 'cancel_reason',
  lastSeq: 'last_seq',
  leaseOwner: 'lease_owner',
  leaseExpiresAt: 'lease_expires_at',
  stopRequested: 'stop_requested',
} as const;

export interface PostgresRunStoreOptions {
  /** The clock for `createdAt`/`updatedAt`, epoch milliseconds; tests pass a manual one. */
  now?: () => number;
}

/**
 * The `RunStore` on PostgreSQL, shared by every instance. Where the SQLite store reads and then
 * writes under the file's write lock, this one lets the database decide: single-use guards are
 * conditional UPDATEs (`… WHERE decision IS NULL`), uniqueness is a constraint whose violation is
 * translated into the same `RunStoreError` the other stores throw, so the conformance suite holds
 * for all three and no instance needs a lock of its own.
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  /** Users and their API tokens: the part of the store that authentication and `runstream users` use. */
  readonly #users: PostgresUsers;
  /** Tool calls, their decisions and host results. */
  readonly #toolCalls: PostgresToolCalls;
  /** The messages of conversations. */
  readonly #messages: PostgresMessages;
  readonly #now: () => number;

  private constructor(pool: pg.Pool, now: () => number) {
    this.#pool = pool;
    this.#now = now;
    this.#users = new PostgresUsers(pool, now);
    this.#toolCalls = new PostgresToolCalls(pool, now);
    this.#messages = new PostgresMessages(pool, now);
  }

  /** Migrates the tables (safe from several instances at once) and returns the store. */
  static async open(pool: pg.Pool, options: PostgresRunStoreOptions = {}): Promise<PostgresRunStore> {
    await migratePostgres(pool, POSTGRES_RUN_STORE_SCHEMA);
    return new PostgresRunStore(pool, options.now ?? Date.now);
  }

  async createUser(name: string, options: { id?: string } = {}): Promise<User> {
    return this.#users.createUser(name, options);
  }

  async getUser(id: string): Promise<User | undefined> {
    return this.#users.getUser(id);
  }

  async issueToken(userId: string, label?: string): Promise<string> {
    return this.#users.issueToken(userId, label);
  }

  async addToken(userId: string, token: string, label?: string): Promise<void> {
    return this.#users.addToken(userId, token, label);
  }

  async findUserByToken(token: string): Promise<User | undefined> {
    return this.#users.findUserByToken(token);
  }

  async listUsers(): Promise<User[]> {
    return this.#users.listUsers();
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    return this.#users.listTokens(userId);
  }

  async revokeToken(tokenId: string): Promise<boolean> {
    return this.#users.revokeToken(tokenId);
  }

  async createConversation(
    userId: string,
    title: string,
    options: NewConversationOptions = {},
  ): Promise<Conversation> {
    const now = this.#now();
    const conversation: Conversation = {
      id: options.id ?? createId('conv'),
      userId,
      agentId: options.agentId ?? '',
      title,
      createdAt: now,
      updatedAt: now,
    };
    try {
      const inserted = await this.#pool.query(
        `INSERT INTO conversations (id, user_id, agent_id, title, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
        [conversation.id, userId, conversation.agentId, title, now, now],
      );
      if (inserted.rowCount === 0)
        throw new RunStoreError('already_exists', `conversation ${conversation.id} already exists`, {
          existingId: conversation.id,
        });
    } catch (error) {
      if (isPostgresError(error, FOREIGN_KEY_VIOLATION)) throw notFound('user', userId);
      throw error;
    }
    return conversation;
  }

  async getConversation(id: string): Promise<Conversation | undefined> {
    const row = await this.#one<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`,
      [id],
    );
    return row === undefined ? undefined : toConversation(row);
  }

  async listConversations(userId: string, filter: ConversationFilter = {}): Promise<Conversation[]> {
    const { rows } = await this.#pool.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations
       WHERE user_id = $1 AND ($2::text IS NULL OR agent_id = $2)
       ORDER BY updated_at DESC, ordinal DESC`,
      [userId, filter.agentId ?? null],
    );
    return rows.map(toConversation);
  }

  async renameConversation(id: string, title: string): Promise<void> {
    const result = await this.#pool.query('UPDATE conversations SET title = $1 WHERE id = $2', [title, id]);
    if (result.rowCount === 0) throw notFound('conversation', id);
  }

  async addUserMessage(
    conversationId: string,
    text: string,
    clientMessageId?: string,
  ): Promise<StoredMessage> {
    return this.#messages.addUserMessage(conversationId, text, clientMessageId);
  }

  async saveAssistantMessage(
    conversationId: string,
    messageId: string,
    runId: string,
    message: Message,
  ): Promise<void> {
    return this.#messages.saveAssistantMessage(conversationId, messageId, runId, message);
  }

  async listMessages(conversationId: string): Promise<StoredMessage[]> {
    return this.#messages.listMessages(conversationId);
  }

  async getAssistantMessage(messageId: string): Promise<Message | undefined> {
    return this.#messages.getAssistantMessage(messageId);
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const now = this.#now();
    const record = newRunRecord(run, now);
    const conversation = await this.#one<Pick<ConversationRow, 'user_id'>>(
      'SELECT user_id FROM conversations WHERE id = $1',
      [run.conversationId],
    );
    if (conversation === undefined) throw notFound('conversation', run.conversationId);
    if (conversation.user_id !== run.userId)
      throw new RunStoreError(
        'conflict',
        `run ${run.id} names user ${run.userId}, but conversation ${run.conversationId} belongs to another user`,
      );
    try {
      const inserted = await this.#pool.query(
        `INSERT INTO runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10, $11, $12, $13)
         ON CONFLICT (id) DO NOTHING`,
        [
          record.id,
          record.conversationId,
          record.messageId,
          record.userId,
          record.status,
          record.cancelReason,
          record.lastSeq,
          record.leaseOwner,
          record.leaseExpiresAt,
          record.agentId,
          record.agentRevision,
          now,
          now,
        ],
      );
      if (inserted.rowCount === 0)
        throw new RunStoreError('already_exists', `run ${run.id} already exists`, { existingId: run.id });
    } catch (error) {
      throw await this.#translateActiveRunConflict(error, run.conversationId, run.id);
    }
    return { ...record };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = await this.#one<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]);
    return row === undefined ? undefined : toRunRecord(row);
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    const updated = await this.#patchRun(id, {}, patch);
    if (updated === undefined) throw notFound('run', id);
    return updated;
  }

  async transitionRun(id: string, condition: RunCondition, patch: RunPatch): Promise<RunRecord | undefined> {
    const updated = await this.#patchRun(id, condition, patch);
    if (updated === undefined && (await this.getRun(id)) === undefined) throw notFound('run', id);
    return updated;
  }

  /** One UPDATE whose WHERE clause is the condition: PostgreSQL decides which instance wins. */
  async #patchRun(id: string, condition: RunCondition, patch: RunPatch): Promise<RunRecord | undefined> {
    const values: unknown[] = [];
    const parameter = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    const assignments: string[] = [];
    for (const [field, column] of Object.entries(RUN_PATCH_COLUMNS)) {
      const value = patch[field as keyof typeof RUN_PATCH_COLUMNS];
      if (value !== undefined) assignments.push(`${column} = ${parameter(value)}`);
    }
    assignments.push(`updated_at = ${parameter(this.#now())}`);
    const conditions = [`id = ${parameter(id)}`];
    if (condition.status !== undefined) conditions.push(`status = ANY(${parameter([...condition.status])})`);
    if (condition.leaseOwner !== undefined)
      conditions.push(`lease_owner IS NOT DISTINCT FROM ${parameter(condition.leaseOwner)}`);
    if (condition.leaseExpiredBefore !== undefined)
      conditions.push(
        `(lease_expires_at IS NULL OR lease_expires_at < ${parameter(condition.leaseExpiredBefore)})`,
      );
    if (condition.noStopRequested === true) conditions.push('stop_requested IS NULL');
    try {
      const { rows } = await this.#pool.query<RunRow>(
        `UPDATE runs SET ${assignments.join(', ')} WHERE ${conditions.join(' AND ')} RETURNING ${RUN_COLUMNS}`,
        values,
      );
      const row = rows[0];
      return row === undefined ? undefined : toRunRecord(row);
    } catch (error) {
      const run = await this.getRun(id);
      throw run === undefined ? error : await this.#translateActiveRunConflict(error, run.conversationId, id);
    }
  }

  async findActiveRun(conversationId: string): Promise<RunRecord | undefined> {
    const row = await this.#one<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE conversation_id = $1 AND status IN ('running', 'paused')
       ORDER BY ordinal DESC LIMIT 1`,
      [conversationId],
    );
    return row === undefined ? undefined : toRunRecord(row);
  }

  async countRunningRuns(userId: string): Promise<number> {
    const row = await this.#one<{ count: string }>(
      `SELECT count(*) AS count FROM runs WHERE status = 'running' AND user_id = $1`,
      [userId],
    );
    return Number(row?.count ?? 0);
  }

  async listRunsByStatus(status: RunStatus): Promise<RunRecord[]> {
    const { rows } = await this.#pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE status = $1 ORDER BY ordinal`,
      [status],
    );
    return rows.map(toRunRecord);
  }

  async findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]> {
    return this.#toolCalls.findOpenHostCalls(userId, toolCallIds);
  }

  async saveCheckpoint(runId: string, checkpoint: unknown): Promise<void> {
    const result = await this.#pool.query('UPDATE runs SET checkpoint = $1, updated_at = $2 WHERE id = $3', [
      checkpoint === null ? null : toJson(checkpoint),
      this.#now(),
      runId,
    ]);
    if (result.rowCount === 0) throw notFound('run', runId);
  }

  async getCheckpoint(runId: string): Promise<unknown> {
    const row = await this.#one<{ checkpoint: string | null }>('SELECT checkpoint FROM runs WHERE id = $1', [
      runId,
    ]);
    return row === undefined ? undefined : fromJson(row.checkpoint);
  }

  async saveToolCall(call: Omit<ToolCallRecord, 'createdAt' | 'updatedAt'>): Promise<void> {
    return this.#toolCalls.saveToolCall(call);
  }

  async getToolCall(runId: string, toolCallId: string): Promise<ToolCallRecord | undefined> {
    return this.#toolCalls.getToolCall(runId, toolCallId);
  }

  async listToolCalls(runId: string): Promise<ToolCallRecord[]> {
    return this.#toolCalls.listToolCalls(runId);
  }

  async decide(
    runId: string,
    toolCallId: string,
    decision: Decision,
  ): Promise<{ applied: boolean; decision: Decision }> {
    return this.#toolCalls.decide(runId, toolCallId, decision);
  }

  async claimExecution(runId: string, toolCallId: string): Promise<boolean> {
    return this.#toolCalls.claimExecution(runId, toolCallId);
  }

  async recordToolResult(
    runId: string,
    toolCallId: string,
    result: HostToolResult,
  ): Promise<{ applied: boolean; existing: HostToolResult }> {
    return this.#toolCalls.recordToolResult(runId, toolCallId, result);
  }

  async #one<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<Row | undefined> {
    return (await this.#pool.query<Row>(text, values)).rows[0];
  }

  /** The one-active-run index refused the write: name the run that holds the conversation. */
  async #translateActiveRunConflict(error: unknown, conversationId: string, runId: string): Promise<unknown> {
    if (!isPostgresError(error, UNIQUE_VIOLATION, ONE_ACTIVE_RUN)) return error;
    const active = await this.#one<{ id: string }>(
      `SELECT id FROM runs WHERE conversation_id = $1 AND id != $2 AND status IN ('running', 'paused') LIMIT 1`,
      [conversationId, runId],
    );
    return activeRunExists(conversationId, active?.id ?? 'another run');
  }
}
