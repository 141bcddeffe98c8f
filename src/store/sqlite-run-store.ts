import type { Database, Statement } from 'better-sqlite3';
import type { Message } from '../protocol/index.ts';
import { createId } from './ids.ts';
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
} from './run-store.ts';
import { RunStoreError } from './run-store-error.ts';
import {
  CONVERSATION_COLUMNS,
  type ConversationRow,
  fromJson,
  type MessageRow,
  type RunRow,
  toConversation,
  toJson,
  toRunRecord,
  toStoredMessage,
} from './run-store-rows.ts';
import {
  activeRunExists,
  assertSameAssistantMessage,
  isActive,
  meetsCondition,
  newRunRecord,
  newUserMessage,
  notFound,
} from './run-store-rules.ts';
import { MESSAGE_COLUMNS, PATCH_RUN, RUN_COLUMNS, runPatchParameters } from './sqlite-run-store-rows.ts';
import { migrateRunStore } from './sqlite-run-store-schema.ts';
import { SqliteToolCalls } from './sqlite-tool-calls.ts';
import { SqliteUsers } from './sqlite-users.ts';

export interface SqliteRunStoreOptions {
  /** The clock for `createdAt`/`updatedAt`, epoch milliseconds; tests pass a manual one. */
  now?: () => number;
}

/**
 * The `RunStore` over the product's SQLite file (opened by `openDatabase`). better-sqlite3 is
 * synchronous, so each method finishes its SQL before it returns its promise; writes that read first
 * run in IMMEDIATE transactions, which take the write lock up front, so another process (the CLI next
 * to the server) cannot slip in between the read and the write.
 */
export class SqliteRunStore implements RunStore {
  readonly #database: Database;
  readonly #now: () => number;
  readonly #statements = new Map<string, Statement>();
  readonly #users: SqliteUsers;
  /** Tool calls, their decisions and host results, over the same statements and transactions. */
  readonly #toolCalls: SqliteToolCalls;

  constructor(database: Database, options: SqliteRunStoreOptions = {}) {
    this.#database = database;
    this.#now = options.now ?? Date.now;
    database.pragma('foreign_keys = ON');
    migrateRunStore(database);
    // Both parts share the store's statement cache and its IMMEDIATE transactions.
    const sql = (source: string) => this.#sql(source);
    const immediate = <T>(work: () => T) => this.#immediate(work);
    this.#users = new SqliteUsers(sql, immediate, this.#now);
    this.#toolCalls = new SqliteToolCalls(database, sql, immediate, this.#now);
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
    this.#immediate(() => {
      this.#users.requireUser(userId);
      if (this.#sql('SELECT 1 FROM conversations WHERE id = ?').get(conversation.id) !== undefined)
        throw new RunStoreError('already_exists', `conversation ${conversation.id} already exists`, {
          existingId: conversation.id,
        });
      this.#sql(
        'INSERT INTO conversations (id, user_id, agent_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(conversation.id, userId, conversation.agentId, title, now, now);
    });
    return conversation;
  }

  async getConversation(id: string): Promise<Conversation | undefined> {
    const row = this.#sql(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = ?`).get(id) as
      | ConversationRow
      | undefined;
    return row === undefined ? undefined : toConversation(row);
  }

  async listConversations(userId: string, filter: ConversationFilter = {}): Promise<Conversation[]> {
    // `@agent_id IS NULL` keeps one static statement for both the whole list and one agent's.
    const rows = this.#sql(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations
       WHERE user_id = @user_id AND (@agent_id IS NULL OR agent_id = @agent_id)
       ORDER BY updated_at DESC, ordinal DESC`,
    ).all({ user_id: userId, agent_id: filter.agentId ?? null }) as ConversationRow[];
    return rows.map(toConversation);
  }

  async renameConversation(id: string, title: string): Promise<void> {
    const result = this.#sql('UPDATE conversations SET title = ? WHERE id = ?').run(title, id);
    if (result.changes === 0) throw notFound('conversation', id);
  }

  async addUserMessage(
    conversationId: string,
    text: string,
    clientMessageId?: string,
  ): Promise<StoredMessage> {
    const message = newUserMessage(conversationId, text, this.#now(), clientMessageId);
    this.#immediate(() => {
      this.#requireConversation(conversationId);
      if (clientMessageId !== undefined) {
        const existing = this.#sql(
          'SELECT id FROM messages WHERE conversation_id = ? AND client_message_id = ?',
        ).get(conversationId, clientMessageId) as { id: string } | undefined;
        if (existing !== undefined)
          throw new RunStoreError(
            'duplicate_client_message',
            `conversation ${conversationId} already has message ${existing.id} for client message ${clientMessageId}`,
            { existingId: existing.id },
          );
      }
      this.#sql(
        `INSERT INTO messages (id, conversation_id, role, text, client_message_id, created_at, updated_at)
         VALUES (?, ?, 'user', ?, ?, ?, ?)`,
      ).run(message.id, conversationId, text, clientMessageId ?? null, message.createdAt, message.createdAt);
      this.#touchConversation(conversationId, message.createdAt);
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
    this.#immediate(() => {
      this.#requireConversation(conversationId);
      const existing = this.#sql('SELECT conversation_id, role, run_id FROM messages WHERE id = ?').get(
        messageId,
      ) as Pick<MessageRow, 'conversation_id' | 'role' | 'run_id'> | undefined;
      if (existing === undefined) {
        this.#sql(
          `INSERT INTO messages (id, conversation_id, role, run_id, message, status, last_seq, created_at, updated_at)
           VALUES (?, ?, 'assistant', ?, ?, ?, ?, ?, ?)`,
        ).run(messageId, conversationId, runId, json, message.status, message.lastSeq, now, now);
        this.#touchConversation(conversationId, now);
        this.#moveRunLastSeq(runId, message.lastSeq, now);
        return;
      }
      assertSameAssistantMessage(
        messageId,
        { conversationId, runId },
        {
          conversationId: existing.conversation_id,
          role: existing.role,
          runId: existing.run_id,
        },
      );
      this.#sql('UPDATE messages SET message = ?, status = ?, last_seq = ?, updated_at = ? WHERE id = ?').run(
        json,
        message.status,
        message.lastSeq,
        now,
        messageId,
      );
      this.#moveRunLastSeq(runId, message.lastSeq, now);
    });
  }

  async listMessages(conversationId: string): Promise<StoredMessage[]> {
    const rows = this.#sql(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY ordinal`,
    ).all(conversationId) as MessageRow[];
    return rows.map(toStoredMessage);
  }

  async getAssistantMessage(messageId: string): Promise<Message | undefined> {
    const row = this.#sql("SELECT message FROM messages WHERE id = ? AND role = 'assistant'").get(
      messageId,
    ) as Pick<MessageRow, 'message'> | undefined;
    return row === undefined ? undefined : (fromJson(row.message) as Message | undefined);
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const now = this.#now();
    const record = newRunRecord(run, now);
    this.#immediate(() => {
      if (this.#sql('SELECT 1 FROM runs WHERE id = ?').get(run.id) !== undefined)
        throw new RunStoreError('already_exists', `run ${run.id} already exists`, { existingId: run.id });
      const conversation = this.#requireConversation(run.conversationId);
      if (conversation.user_id !== run.userId)
        throw new RunStoreError(
          'conflict',
          `run ${run.id} names user ${run.userId}, but conversation ${run.conversationId} belongs to another user`,
        );
      if (isActive(run.status)) this.#assertNoOtherActiveRun(run.conversationId, run.id);
      this.#sql(
        `INSERT INTO runs (${RUN_COLUMNS}) VALUES (@id, @conversationId, @messageId, @userId, @status,
           @cancelReason, @lastSeq, @leaseOwner, @leaseExpiresAt, @stopRequested, @agentId, @agentRevision,
           @createdAt, @updatedAt)`,
      ).run(record);
    });
    return { ...record };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = this.#sql(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id) as RunRow | undefined;
    return row === undefined ? undefined : toRunRecord(row);
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    const now = this.#now();
    return this.#immediate(() => {
      const row = this.#sql('SELECT conversation_id FROM runs WHERE id = ?').get(id) as
        | Pick<RunRow, 'conversation_id'>
        | undefined;
      if (row === undefined) throw notFound('run', id);
      if (patch.status !== undefined && isActive(patch.status))
        this.#assertNoOtherActiveRun(row.conversation_id, id);
      this.#sql(PATCH_RUN).run(runPatchParameters(id, patch, now));
      return toRunRecord(this.#sql(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id) as RunRow);
    });
  }

  async transitionRun(id: string, condition: RunCondition, patch: RunPatch): Promise<RunRecord | undefined> {
    const now = this.#now();
    return this.#immediate(() => {
      // Read and write under the file's write lock: no other process can move the run in between.
      const row = this.#sql(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id) as RunRow | undefined;
      if (row === undefined) throw notFound('run', id);
      if (!meetsCondition(toRunRecord(row), condition)) return undefined;
      if (patch.status !== undefined && isActive(patch.status))
        this.#assertNoOtherActiveRun(row.conversation_id, id);
      this.#sql(PATCH_RUN).run(runPatchParameters(id, patch, now));
      return toRunRecord(this.#sql(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id) as RunRow);
    });
  }

  async findActiveRun(conversationId: string): Promise<RunRecord | undefined> {
    const row = this.#sql(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE conversation_id = ? AND status IN ('running', 'paused')
       ORDER BY ordinal DESC LIMIT 1`,
    ).get(conversationId) as RunRow | undefined;
    return row === undefined ? undefined : toRunRecord(row);
  }

  async countRunningRuns(userId: string): Promise<number> {
    const row = this.#sql(`SELECT count(*) AS count FROM runs WHERE status = 'running' AND user_id = ?`).get(
      userId,
    ) as { count: number };
    return row.count;
  }

  async listRunsByStatus(status: RunStatus): Promise<RunRecord[]> {
    const rows = this.#sql(`SELECT ${RUN_COLUMNS} FROM runs WHERE status = ? ORDER BY ordinal`).all(
      status,
    ) as RunRow[];
    return rows.map(toRunRecord);
  }

  async findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]> {
    return this.#toolCalls.findOpenHostCalls(userId, toolCallIds);
  }

  async saveCheckpoint(runId: string, checkpoint: unknown): Promise<void> {
    const result = this.#sql('UPDATE runs SET checkpoint = ?, updated_at = ? WHERE id = ?').run(
      checkpoint === null ? null : toJson(checkpoint),
      this.#now(),
      runId,
    );
    if (result.changes === 0) throw notFound('run', runId);
  }

  async getCheckpoint(runId: string): Promise<unknown> {
    const row = this.#sql('SELECT checkpoint FROM runs WHERE id = ?').get(runId) as
      | { checkpoint: string | null }
      | undefined;
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

  #sql(source: string): Statement {
    let statement = this.#statements.get(source);
    if (statement === undefined) {
      statement = this.#database.prepare(source);
      this.#statements.set(source, statement);
    }
    return statement;
  }

  #immediate<T>(work: () => T): T {
    return this.#database.transaction(work).immediate();
  }

  #requireConversation(conversationId: string): Pick<ConversationRow, 'user_id'> {
    const row = this.#sql('SELECT user_id FROM conversations WHERE id = ?').get(conversationId) as
      | Pick<ConversationRow, 'user_id'>
      | undefined;
    if (row === undefined) throw notFound('conversation', conversationId);
    return row;
  }

  #moveRunLastSeq(runId: string, lastSeq: number, at: number): void {
    this.#sql('UPDATE runs SET last_seq = ?, updated_at = ? WHERE id = ?').run(lastSeq, at, runId);
  }

  #touchConversation(conversationId: string, at: number): void {
    this.#sql('UPDATE conversations SET updated_at = ? WHERE id = ?').run(at, conversationId);
  }

  #assertNoOtherActiveRun(conversationId: string, runId: string): void {
    const active = this.#sql(
      `SELECT id FROM runs WHERE conversation_id = ? AND id != ? AND status IN ('running', 'paused') LIMIT 1`,
    ).get(conversationId, runId) as { id: string } | undefined;
    if (active !== undefined) throw activeRunExists(conversationId, active.id);
  }
}
