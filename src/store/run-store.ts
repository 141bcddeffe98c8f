import type { Message } from '../protocol/index.ts';

export interface User {
  id: string;
  name: string;
  createdAt: number;
}

export interface Conversation {
  id: string;
  userId: string;
  title: string;
  createdAt: number;
  updatedAt: number;
}

/** A user's message is text; an assistant's message is the protocol `Message` its run built. */
export type StoredMessage =
  | {
      id: string;
      conversationId: string;
      role: 'user';
      text: string;
      createdAt: number;
      clientMessageId?: string;
    }
  | {
      id: string;
      conversationId: string;
      role: 'assistant';
      runId: string;
      message: Message;
      createdAt: number;
    };

export type RunStatus = 'running' | 'paused' | 'completed' | 'cancelled' | 'failed' | 'interrupted';

export interface RunRecord {
  id: string;
  conversationId: string;
  /** The assistant message this run builds (one run, one message, across pauses). */
  messageId: string;
  userId: string;
  status: RunStatus;
  cancelReason: string | null;
  lastSeq: number;
  /** Which server instance drives the run, until when; a run whose lease lapsed was orphaned. */
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type ToolCallStatus =
  | 'pending'
  | 'awaiting_confirmation'
  | 'running'
  | 'done'
  | 'failed'
  | 'rejected'
  | 'cancelled';

export interface Decision {
  decision: 'approve' | 'reject';
  decidedAt: number;
  note?: string;
}

/**
 * What the host submitted for a host tool call (a tool the caller declared and runs itself): its
 * output text, or the error it reports instead.
 */
export type HostToolResult = { output: string } | { error: string };

export interface ToolCallRecord {
  runId: string;
  toolCallId: string;
  name: string;
  args: unknown;
  /** `host`: a tool the caller declared and executes itself; the run waits for its result. */
  effect: 'read' | 'write' | 'host';
  status: ToolCallStatus;
  decision: Decision | null;
  result?: unknown;
  error?: { code: string; message: string };
  /** A host call's submitted result, once `recordToolResult` stored it (single-use, like a decision). */
  hostResult?: HostToolResult;
  createdAt: number;
  updatedAt: number;
}

/**
 * The product's durable state: users and their API tokens (stored hashed), conversations, messages,
 * runs and tool calls with their decisions. Written at block boundaries and terminal events, never
 * per delta. Every read that a request makes is scoped by user id by the caller.
 */
export interface RunStore {
  createUser(name: string, options?: { id?: string }): Promise<User>;
  getUser(id: string): Promise<User | undefined>;
  /** A new random token for the user; only its hash is stored, so the plaintext is returned once. */
  issueToken(userId: string, label?: string): Promise<string>;
  /** Stores a caller-chosen token (a fixed demo token from the environment), hashed like any other. */
  addToken(userId: string, token: string, label?: string): Promise<void>;
  findUserByToken(token: string): Promise<User | undefined>;

  createConversation(userId: string, title: string): Promise<Conversation>;
  getConversation(id: string): Promise<Conversation | undefined>;
  listConversations(userId: string): Promise<Conversation[]>;
  renameConversation(id: string, title: string): Promise<void>;

  addUserMessage(conversationId: string, text: string, clientMessageId?: string): Promise<StoredMessage>;
  /** Creates or replaces the assistant message of a run with its current persisted state. */
  saveAssistantMessage(
    conversationId: string,
    messageId: string,
    runId: string,
    message: Message,
  ): Promise<void>;
  listMessages(conversationId: string): Promise<StoredMessage[]>;

  createRun(run: Omit<RunRecord, 'createdAt' | 'updatedAt'>): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | undefined>;
  updateRun(
    id: string,
    patch: Partial<Pick<RunRecord, 'status' | 'cancelReason' | 'lastSeq' | 'leaseOwner' | 'leaseExpiresAt'>>,
  ): Promise<RunRecord>;
  /** The conversation's run that is still `running` or `paused`, if any. */
  findActiveRun(conversationId: string): Promise<RunRecord | undefined>;
  listRunsByStatus(status: RunStatus): Promise<RunRecord[]>;
  /**
   * Keep what the runtime needs to resume a paused run after a restart (its transcript, loaded
   * skills, pending calls). JSON-serialisable and opaque to the store; `null` clears it once the run
   * has moved on. Kept apart from `RunRecord` because it can be large and is read only on resume.
   */
  saveCheckpoint(runId: string, checkpoint: unknown): Promise<void>;
  /** The checkpoint last saved for the run, or `undefined` when there is none (cleared, unknown run). */
  getCheckpoint(runId: string): Promise<unknown>;

  saveToolCall(call: Omit<ToolCallRecord, 'createdAt' | 'updatedAt'>): Promise<void>;
  getToolCall(runId: string, toolCallId: string): Promise<ToolCallRecord | undefined>;
  listToolCalls(runId: string): Promise<ToolCallRecord[]>;
  /**
   * Record a decision if none exists yet, atomically. Returns the decision in force: the new one
   * (`applied: true`) or the first one (`applied: false`), so a double click decides once.
   */
  decide(
    runId: string,
    toolCallId: string,
    decision: Decision,
  ): Promise<{ applied: boolean; decision: Decision }>;
  /**
   * Claim the single execution of a write tool call, atomically: true for the first caller only, so
   * an approved cancellation runs once however many requests race.
   */
  claimExecution(runId: string, toolCallId: string): Promise<boolean>;
  /**
   * Record the host's result of a host tool call (`effect: "host"`) if none exists yet, atomically.
   * Returns the result in force: the new one (`applied: true`) or the first one (`applied: false`),
   * so a retried submission stores nothing twice and a different one can be told apart. A later
   * `saveToolCall` never erases it. Fails with `not_found` for an unknown call and
   * `invalid_argument` for a call that is not a host call.
   */
  recordToolResult(
    runId: string,
    toolCallId: string,
    result: HostToolResult,
  ): Promise<{ applied: boolean; existing: HostToolResult }>;
}
