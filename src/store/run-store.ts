import type { Message } from '../protocol/index.ts';

export interface User {
  id: string;
  name: string;
  createdAt: number;
}

/** An API token as an administrator sees it: never the token, only its id. */
export interface TokenInfo {
  /** `tok_` and the first 16 hex digits of the token's SHA-256 (`tokenIdOf`). */
  id: string;
  userId: string;
  label: string | null;
  createdAt: number;
}

export interface Conversation {
  id: string;
  userId: string;
  /**
   * The agent the conversation talks to, fixed at creation. `''` is the server's default agent:
   * what every conversation from before agents existed holds, so it follows the default.
   */
  agentId: string;
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
  /**
   * A stop asked for on an instance that does not drive the run (its reason): the owner sees it
   * when notified or at its next lease renewal, and stops the run with that reason.
   */
  stopRequested: string | null;
  /** The agent the run ran (`ResolvedAgent.id`); `null` for runs stored before runs recorded it. */
  agentId: string | null;
  /**
   * The revision of that agent's definition (`ResolvedAgent.revision`), so a run can be traced to the
   * instructions and tools it had; `null` as for `agentId`.
   */
  agentRevision: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * What `createRun` takes: the record without what the store stamps or what only a later write sets.
 * The agent fields may be left out (stored as `null`); no later write changes them.
 */
export type NewRun = Omit<
  RunRecord,
  'createdAt' | 'updatedAt' | 'stopRequested' | 'agentId' | 'agentRevision'
> &
  Partial<Pick<RunRecord, 'agentId' | 'agentRevision'>>;

/** What `createConversation` takes besides the user and the title. */
export interface NewConversationOptions {
  /**
   * For callers that derive the id from a key of their own (a dialect's thread id, see
   * `src/server/run-input/dialect-conversation.ts`); a taken id is `already_exists`.
   */
  id?: string;
  /** The agent the conversation belongs to; default `''`, the server's default agent. */
  agentId?: string;
}

/** What `listConversations` may narrow the list to. */
export interface ConversationFilter {
  /** Only the conversations of this agent (`''`: those of the default agent). */
  agentId?: string;
}

/** The fields a run update may change. */
export type RunPatch = Partial<
  Pick<RunRecord, 'status' | 'cancelReason' | 'lastSeq' | 'leaseOwner' | 'leaseExpiresAt' | 'stopRequested'>
>;

/**
 * The condition of a compare-and-set on a run (`transitionRun`): every part given must hold. This is
 * what decides between instances: which one resumes a paused run, renews or takes over a lease,
 * or finishes a run, without any lock of their own.
 */
export interface RunCondition {
  /** The run's status is one of these. */
  status?: readonly RunStatus[];
  /** The lease is held by this instance (`null`: by nobody). */
  leaseOwner?: string | null;
  /** The lease lapsed before this time, epoch milliseconds, or there is none. */
  leaseExpiredBefore?: number;
  /** No stop has been requested yet. */
  noStopRequested?: boolean;
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
  /** Every user, oldest first. */
  listUsers(): Promise<User[]>;
  /** A user's tokens, oldest first; never the tokens themselves. */
  listTokens(userId: string): Promise<TokenInfo[]>;
  /**
   * Revokes a token by its id: the next request with it is 401. False when no token has that id
   * (including a malformed one).
   */
  revokeToken(tokenId: string): Promise<boolean>;

  /** A new conversation of the user's, with the agent it belongs to (see `NewConversationOptions`). */
  createConversation(userId: string, title: string, options?: NewConversationOptions): Promise<Conversation>;
  getConversation(id: string): Promise<Conversation | undefined>;
  /** The user's conversations, most recently active first; `filter.agentId` keeps one agent's. */
  listConversations(userId: string, filter?: ConversationFilter): Promise<Conversation[]>;
  renameConversation(id: string, title: string): Promise<void>;

  addUserMessage(conversationId: string, text: string, clientMessageId?: string): Promise<StoredMessage>;
  /**
   * Creates or replaces the assistant message of a run with its current persisted state, and moves
   * the run's `lastSeq` (if the run is stored) to the message's in the same write: one transaction per
   * block boundary, and a run never claims more, or less, than its stored message holds.
   */
  saveAssistantMessage(
    conversationId: string,
    messageId: string,
    runId: string,
    message: Message,
  ): Promise<void>;
  listMessages(conversationId: string): Promise<StoredMessage[]>;
  /**
   * The persisted state of the assistant message `messageId` (a run's `messageId`): one read by key,
   * for what a run has built so far without reading its whole conversation. `undefined` when nothing
   * is stored under that id yet, or when it names a user's message.
   */
  getAssistantMessage(messageId: string): Promise<Message | undefined>;

  createRun(run: NewRun): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | undefined>;
  updateRun(id: string, patch: RunPatch): Promise<RunRecord>;
  /**
   * Apply `patch` only if the run meets `condition`, atomically: the updated run, or `undefined`
   * when the condition failed (another instance got there first). Fails with `not_found` for an
   * unknown run and `active_run_exists` as `updateRun` does.
   */
  transitionRun(id: string, condition: RunCondition, patch: RunPatch): Promise<RunRecord | undefined>;
  /** The conversation's run that is still `running` or `paused`, if any. */
  findActiveRun(conversationId: string): Promise<RunRecord | undefined>;
  /** How many of a user's runs are `running` (paused ones wait for the user and cost nothing). */
  countRunningRuns(userId: string): Promise<number>;
  listRunsByStatus(status: RunStatus): Promise<RunRecord[]>;
  /**
   * The host calls with these ids that still wait for their output in the user's paused runs
   * (status `pending`, no submitted result), oldest first: how a stateless client's
   * `function_call_output` finds the run it answers. Indexed by call id, so it costs the matches,
   * not the number of paused runs; another user's calls never match.
   */
  findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]>;
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
