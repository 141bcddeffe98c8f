import type { Message } from '../protocol/index.ts';
import { generateApiToken, hashApiToken, tokenHashPrefixOf, tokenIdOf } from './api-token.ts';
import { createId } from './ids.ts';
import { jsonCopy } from './json-copy.ts';
import { MemoryToolCalls } from './memory-tool-calls.ts';
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
  activeRunExists,
  assertSameAssistantMessage,
  isActive,
  meetsCondition,
  newRunRecord,
  newUserMessage,
  notFound,
} from './run-store-rules.ts';

export interface MemoryRunStoreOptions {
  /** The clock for `createdAt`/`updatedAt`, epoch milliseconds; tests pass a manual one. */
  now?: () => number;
}

/**
 * The `RunStore` in memory, for tests of the runtime and the server: the same rules as the SQLite
 * store (the shared conformance suite runs against both). Every method does its checks and writes
 * before its first `await`, so on one event loop each call is atomic, which is what makes `decide`
 * and `claimExecution` single-use. Values go in and out as JSON copies, as they would through
 * SQLite, so a caller mutating a record it got back changes nothing stored.
 */
export class MemoryRunStore implements RunStore {
  readonly #now: () => number;
  readonly #users = new Map<string, User>();
  /** By token hash; the plaintext is never kept, as in SQLite. */
  readonly #tokens = new Map<string, { userId: string; label: string | null; createdAt: number }>();
  // Maps iterate in insertion order and `set` on an existing key keeps its place: creation order.
  readonly #conversations = new Map<string, Conversation>();
  readonly #messages = new Map<string, StoredMessage>();
  readonly #runs = new Map<string, RunRecord>();
  /** Tool calls, their decisions and host results: `MemoryToolCalls`, over these same runs. */
  readonly #toolCalls: MemoryToolCalls;
  /** By run id, as JSON text: what SQLite would hold. */
  readonly #checkpoints = new Map<string, string>();

  constructor(options: MemoryRunStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#toolCalls = new MemoryToolCalls(this.#runs, this.#now);
  }

  async createUser(name: string, options: { id?: string } = {}): Promise<User> {
    const user: User = { id: options.id ?? createId('usr'), name, createdAt: this.#now() };
    if (this.#users.has(user.id))
      throw new RunStoreError('already_exists', `user ${user.id} already exists`, { existingId: user.id });
    this.#users.set(user.id, user);
    return { ...user };
  }

  async getUser(id: string): Promise<User | undefined> {
    const user = this.#users.get(id);
    return user === undefined ? undefined : { ...user };
  }

  async issueToken(userId: string, label?: string): Promise<string> {
    const token = generateApiToken();
    this.#addToken(userId, token, label);
    return token;
  }

  async addToken(userId: string, token: string, label?: string): Promise<void> {
    this.#addToken(userId, token, label);
  }

  async findUserByToken(token: string): Promise<User | undefined> {
    if (token.length === 0) return undefined;
    const entry = this.#tokens.get(hashApiToken(token));
    return entry === undefined ? undefined : this.getUser(entry.userId);
  }

  async listUsers(): Promise<User[]> {
    return [...this.#users.values()]
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((user) => ({ ...user }));
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    return [...this.#tokens]
      .filter(([, token]) => token.userId === userId)
      .sort(([hashA, a], [hashB, b]) => a.createdAt - b.createdAt || (hashA < hashB ? -1 : 1))
      .map(([hash, token]) => ({ id: tokenIdOf(hash), ...token }));
  }

  async revokeToken(tokenId: string): Promise<boolean> {
    const prefix = tokenHashPrefixOf(tokenId);
    if (prefix === undefined) return false;
    let revoked = false;
    for (const hash of [...this.#tokens.keys()]) {
      if (hash.startsWith(prefix)) revoked = this.#tokens.delete(hash) || revoked;
    }
    return revoked;
  }

  async createConversation(
    userId: string,
    title: string,
    options: NewConversationOptions = {},
  ): Promise<Conversation> {
    if (!this.#users.has(userId)) throw notFound('user', userId);
    const now = this.#now();
    const conversation: Conversation = {
      id: options.id ?? createId('conv'),
      userId,
      agentId: options.agentId ?? '',
      title,
      createdAt: now,
      updatedAt: now,
    };
    if (this.#conversations.has(conversation.id))
      throw new RunStoreError('already_exists', `conversation ${conversation.id} already exists`, {
        existingId: conversation.id,
      });
    this.#conversations.set(conversation.id, conversation);
    return { ...conversation };
  }

  async getConversation(id: string): Promise<Conversation | undefined> {
    const conversation = this.#conversations.get(id);
    return conversation === undefined ? undefined : { ...conversation };
  }

  async listConversations(userId: string, filter: ConversationFilter = {}): Promise<Conversation[]> {
    return [...this.#conversations.values()]
      .map((conversation, ordinal) => ({ conversation, ordinal }))
      .filter(
        ({ conversation }) =>
          conversation.userId === userId &&
          (filter.agentId === undefined || conversation.agentId === filter.agentId),
      )
      .sort((a, b) => b.conversation.updatedAt - a.conversation.updatedAt || b.ordinal - a.ordinal)
      .map(({ conversation }) => ({ ...conversation }));
  }

  async renameConversation(id: string, title: string): Promise<void> {
    const conversation = this.#conversations.get(id);
    if (conversation === undefined) throw notFound('conversation', id);
    conversation.title = title;
  }

  async addUserMessage(
    conversationId: string,
    text: string,
    clientMessageId?: string,
  ): Promise<StoredMessage> {
    const conversation = this.#requireConversation(conversationId);
    if (clientMessageId !== undefined) {
      for (const existing of this.#messages.values()) {
        if (
          existing.conversationId === conversationId &&
          existing.role === 'user' &&
          existing.clientMessageId === clientMessageId
        )
          throw new RunStoreError(
            'duplicate_client_message',
            `conversation ${conversationId} already has message ${existing.id} for client message ${clientMessageId}`,
            { existingId: existing.id },
          );
      }
    }
    const message = newUserMessage(conversationId, text, this.#now(), clientMessageId);
    this.#messages.set(message.id, message);
    conversation.updatedAt = message.createdAt;
    return { ...message };
  }

  async saveAssistantMessage(
    conversationId: string,
    messageId: string,
    runId: string,
    message: Message,
  ): Promise<void> {
    const conversation = this.#requireConversation(conversationId);
    const existing = this.#messages.get(messageId);
    const copy = jsonCopy(message);
    if (existing === undefined) {
      const now = this.#now();
      this.#messages.set(messageId, {
        id: messageId,
        conversationId,
        role: 'assistant',
        runId,
        message: copy,
        createdAt: now,
      });
      conversation.updatedAt = now;
      this.#moveRunLastSeq(runId, message.lastSeq);
      return;
    }
    assertSameAssistantMessage(
      messageId,
      { conversationId, runId },
      {
        conversationId: existing.conversationId,
        role: existing.role,
        runId: existing.role === 'assistant' ? existing.runId : null,
      },
    );
    this.#messages.set(messageId, {
      id: messageId,
      conversationId,
      role: 'assistant',
      runId,
      message: copy,
      createdAt: existing.createdAt,
    });
    this.#moveRunLastSeq(runId, message.lastSeq);
  }

  #moveRunLastSeq(runId: string, lastSeq: number): void {
    const run = this.#runs.get(runId);
    if (run === undefined) return;
    run.lastSeq = lastSeq;
    run.updatedAt = this.#now();
  }

  async listMessages(conversationId: string): Promise<StoredMessage[]> {
    return [...this.#messages.values()]
      .filter((message) => message.conversationId === conversationId)
      .map((message) =>
        message.role === 'user' ? { ...message } : { ...message, message: jsonCopy(message.message) },
      );
  }

  async getAssistantMessage(messageId: string): Promise<Message | undefined> {
    const stored = this.#messages.get(messageId);
    return stored?.role === 'assistant' ? jsonCopy(stored.message) : undefined;
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    if (this.#runs.has(run.id))
      throw new RunStoreError('already_exists', `run ${run.id} already exists`, { existingId: run.id });
    const conversation = this.#requireConversation(run.conversationId);
    if (conversation.userId !== run.userId)
      throw new RunStoreError(
        'conflict',
        `run ${run.id} names user ${run.userId}, but conversation ${run.conversationId} belongs to another user`,
      );
    if (isActive(run.status)) this.#assertNoOtherActiveRun(run.conversationId, run.id);
    const record = newRunRecord(run, this.#now());
    this.#runs.set(run.id, record);
    return { ...record };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const run = this.#runs.get(id);
    return run === undefined ? undefined : { ...run };
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    const run = this.#runs.get(id);
    if (run === undefined) throw notFound('run', id);
    return this.#patchRun(run, patch);
  }

  async transitionRun(id: string, condition: RunCondition, patch: RunPatch): Promise<RunRecord | undefined> {
    const run = this.#runs.get(id);
    if (run === undefined) throw notFound('run', id);
    if (!meetsCondition(run, condition)) return undefined;
    return this.#patchRun(run, patch);
  }

  #patchRun(run: RunRecord, patch: RunPatch): RunRecord {
    const id = run.id;
    if (patch.status !== undefined && isActive(patch.status))
      this.#assertNoOtherActiveRun(run.conversationId, id);
    if (patch.status !== undefined) run.status = patch.status;
    if (patch.cancelReason !== undefined) run.cancelReason = patch.cancelReason;
    if (patch.lastSeq !== undefined) run.lastSeq = patch.lastSeq;
    if (patch.leaseOwner !== undefined) run.leaseOwner = patch.leaseOwner;
    if (patch.leaseExpiresAt !== undefined) run.leaseExpiresAt = patch.leaseExpiresAt;
    if (patch.stopRequested !== undefined) run.stopRequested = patch.stopRequested;
    run.updatedAt = this.#now();
    return { ...run };
  }

  async findActiveRun(conversationId: string): Promise<RunRecord | undefined> {
    let active: RunRecord | undefined;
    for (const run of this.#runs.values())
      if (run.conversationId === conversationId && isActive(run.status)) active = run;
    return active === undefined ? undefined : { ...active };
  }

  async countRunningRuns(userId: string): Promise<number> {
    let count = 0;
    for (const run of this.#runs.values()) if (run.userId === userId && run.status === 'running') count += 1;
    return count;
  }

  async listRunsByStatus(status: RunStatus): Promise<RunRecord[]> {
    return [...this.#runs.values()].filter((run) => run.status === status).map((run) => ({ ...run }));
  }

  async findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]> {
    return this.#toolCalls.findOpenHostCalls(userId, toolCallIds);
  }

  async saveCheckpoint(runId: string, checkpoint: unknown): Promise<void> {
    const run = this.#runs.get(runId);
    if (run === undefined) throw notFound('run', runId);
    if (checkpoint === null || checkpoint === undefined) this.#checkpoints.delete(runId);
    else this.#checkpoints.set(runId, JSON.stringify(checkpoint));
    run.updatedAt = this.#now();
  }

  async getCheckpoint(runId: string): Promise<unknown> {
    const json = this.#checkpoints.get(runId);
    return json === undefined ? undefined : JSON.parse(json);
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

  #addToken(userId: string, token: string, label: string | undefined): void {
    if (token.length === 0) throw new RunStoreError('invalid_argument', 'a token cannot be empty');
    if (!this.#users.has(userId)) throw notFound('user', userId);
    const tokenHash = hashApiToken(token);
    const owner = this.#tokens.get(tokenHash);
    if (owner?.userId === userId) return;
    if (owner !== undefined) throw new RunStoreError('already_exists', 'that token belongs to another user');
    this.#tokens.set(tokenHash, { userId, label: label ?? null, createdAt: this.#now() });
  }

  #requireConversation(conversationId: string): Conversation {
    const conversation = this.#conversations.get(conversationId);
    if (conversation === undefined) throw notFound('conversation', conversationId);
    return conversation;
  }

  #assertNoOtherActiveRun(conversationId: string, runId: string): void {
    for (const run of this.#runs.values())
      if (run.conversationId === conversationId && run.id !== runId && isActive(run.status))
        throw activeRunExists(conversationId, run.id);
  }
}
