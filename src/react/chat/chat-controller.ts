import {
  type ConfirmationDecision,
  type ConversationDetail,
  NotFoundError,
  type RunstreamClient,
  RunstreamError,
  UnauthorizedError,
} from '../../client/index.ts';
import { createMessageState, type MessageState } from '../../protocol/index.ts';
import {
  type ChatItem,
  type ChatSnapshot,
  composerBlock,
  EMPTY_CONVERSATION,
  initialSnapshot,
  toNotice,
} from './chat-snapshot.ts';
import { restoredItems } from './restored-items.ts';
import { RunStreams } from './run-streams.ts';
import { SnapshotFrames } from './snapshot-frames.ts';

export type { ChatItem, ChatSnapshot, ConnectionView, ConversationView, Notice } from './chat-snapshot.ts';
export { canStop, composerBlock } from './chat-snapshot.ts';

export interface ChatControllerOptions {
  client: RunstreamClient;
  /** Put a conversation's address in the location bar (`/c/{id}`, or `/` for a new one). */
  navigate?(path: string, options: { replace: boolean }): void;
  /** A conversation was created for the first message sent without one. */
  onConversationCreated?(conversationId: string): void;
  /** The token was refused: the page signs in again. */
  onUnauthorized?(): void;
  /**
   * The agent of a conversation created on the first send, read at that moment; over the one
   * chosen with `selectAgent`. Absent (or `undefined`), the chosen one, else the server's default.
   */
  agentId?: () => string | undefined;
  /** Batch renders; defaults to requestAnimationFrame. Streams deliver far more events than frames. */
  scheduleFrame?: (callback: () => void) => void;
}

/**
 * A chat's state and everything that changes it, free of React so it can be reasoned about alone:
 * the engine under `useRunstreamChat`, and the whole state of the shipped chat page (which also
 * keeps the agent list, the conversation list and the location bar here). The protocol work is the client SDK's: each assistant message is the `MessageState` its RunStream
 * reduced (or `fromMessage()` of the persisted message after a refresh); this class only decides
 * which stream to follow and where to put its states.
 *
 * A conversation switch or a refresh only disconnects (the run goes on, and is followed again when
 * the conversation is opened); the stop button is the one way to end a run early.
 */
export class ChatController {
  readonly #client: RunstreamClient;
  readonly #options: ChatControllerOptions;
  /** The page's snapshot, its changes batched to one render per frame. */
  readonly #frames: SnapshotFrames;
  /** The run stream being followed, if any. */
  readonly #streams: RunStreams;
  /** Bumped on every conversation switch; work started for an older one drops its results. */
  #generation = 0;
  #keyCounter = 0;
  /**
   * The id of a message whose send failed without an answer (it may have been stored after all):
   * sending the same text again reuses it, so the server can tell a retry from a second message.
   */
  #unconfirmedSend: { text: string; clientMessageId: string } | null = null;

  constructor(options: ChatControllerOptions) {
    this.#client = options.client;
    this.#options = options;
    this.#frames = new SnapshotFrames(initialSnapshot(), () => this.#options.scheduleFrame);
    this.#streams = new RunStreams({
      client: this.#client,
      current: () => this.#current,
      update: (change) => this.#update(change),
      setState: (itemKey, state) => this.#setState(itemKey, state),
      handleAuth: (error) => this.#handleAuth(error),
      generation: () => this.#generation,
    });
  }

  subscribe = (listener: () => void): (() => void) => this.#frames.subscribe(listener);

  getSnapshot = (): ChatSnapshot => this.#frames.snapshot;

  /** The current view including changes not yet flushed to the screen. */
  get #current(): ChatSnapshot {
    return this.#frames.current;
  }

  get currentConversationId(): string | null {
    return this.#current.conversation.id;
  }

  /**
   * `GET /v1/agents`: each agent's title, greeting and examples, and the picker's choices. Without
   * the list (an older server, a failure) the page keeps its generic title and new conversations go
   * to the server's default agent.
   */
  async loadAgents(): Promise<void> {
    try {
      const agents = await this.#client.listAgents();
      const selected = this.#current.selectedAgentId;
      this.#update({
        agents,
        // A conversation of an agent the server no longer runs must not choose the next one's.
        selectedAgentId: agents.some((agent) => agent.id === selected) ? selected : null,
      });
    } catch (error) {
      this.#handleAuth(error);
    }
  }

  /**
   * Choose the agent of the next new conversation. The picker shows the agent of what is on screen,
   * so choosing another one from an existing conversation starts a new conversation with it.
   */
  selectAgent(agentId: string): void {
    const current = this.#current;
    if (current.sending || !current.agents.some((agent) => agent.id === agentId)) return;
    this.#update({ selectedAgentId: agentId });
    if (current.conversation.id !== null) this.newConversation();
  }

  async refreshConversations(): Promise<void> {
    try {
      const conversations = await this.#client.listConversations();
      this.#update({ conversations, conversationsError: null });
    } catch (error) {
      this.#handleAuth(error);
      this.#update({ conversationsError: toNotice(error) });
    }
  }

  /** Open a conversation (or the empty new one for `null`), restoring it exactly as persisted. */
  async openConversation(id: string | null): Promise<void> {
    this.#streams.disconnect();
    const generation = ++this.#generation;
    this.#update({
      conversation: id === null ? EMPTY_CONVERSATION : { ...EMPTY_CONVERSATION, id, status: 'loading' },
      composerNotice: null,
      deciding: new Set(),
      decisionErrors: new Map(),
      sending: false,
      stopping: false,
    });
    if (id === null) return;
    await this.#load(id, generation);
  }

  /** A new, empty conversation; it is created on the server with its first message. */
  newConversation(): void {
    this.#options.navigate?.('/', { replace: false });
    void this.openConversation(null);
  }

  /**
   * Send a message and stream the run it starts. Resolves `true` once the server accepted it (the
   * composer may forget the text) and `false` when it was refused (the text goes back).
   */
  async send(text: string): Promise<boolean> {
    const trimmed = text.trim();
    if (trimmed === '' || this.isBusy()) return false;
    const generation = this.#generation;
    // Set before the first await: a double click (or Enter plus a click) sends one message.
    this.#update({ sending: true, composerNotice: null });
    let conversationId = this.#current.conversation.id;
    if (conversationId === null) {
      const agentId = this.#options.agentId?.() ?? this.#current.selectedAgentId ?? undefined;
      try {
        const created = await this.#client.createConversation(agentId === undefined ? {} : { agentId });
        if (generation !== this.#generation) return true;
        conversationId = created.id;
        this.#options.navigate?.(`/c/${encodeURIComponent(created.id)}`, { replace: true });
        this.#options.onConversationCreated?.(created.id);
        this.#update({
          conversation: {
            ...this.#current.conversation,
            id: created.id,
            title: created.title,
            agentId: created.agentId ?? agentId ?? null,
            status: 'ready',
          },
        });
      } catch (error) {
        this.#handleAuth(error);
        if (generation === this.#generation)
          this.#update({ sending: false, composerNotice: toNotice(error) });
        return false;
      }
    }

    const userKey = this.#newKey('user');
    const assistantKey = this.#newKey('assistant');
    this.#updateItems((items) => [
      ...items,
      { kind: 'user', key: userKey, text: trimmed },
      { kind: 'assistant', key: assistantKey, state: createMessageState() },
    ]);

    const clientMessageId =
      this.#unconfirmedSend?.text === trimmed ? this.#unconfirmedSend.clientMessageId : randomId();
    this.#unconfirmedSend = null;
    const abort = new AbortController();
    const stream = this.#client.sendMessage(
      conversationId,
      { text: trimmed, clientMessageId },
      {
        signal: abort.signal,
        onConnectionChange: (change) => this.#streams.onConnectionChange(change, abort),
      },
    );
    const sentTo = conversationId;
    return new Promise<boolean>((resolve) => {
      void this.#streams.follow(
        {
          conversationId: sentTo,
          itemKey: assistantKey,
          stream,
          abort,
          stopRequested: false,
          cancelSent: false,
        },
        {
          onFirstUpdate: () => {
            this.#update({ sending: false });
            resolve(true);
            void this.refreshConversations();
          },
          onAborted: () => resolve(true),
          onRefused: (error) => {
            // The server stored nothing (or we cannot tell): take back the optimistic message and say why.
            this.#updateItems((items) =>
              items.filter((item) => item.key !== userKey && item.key !== assistantKey),
            );
            this.#update({ sending: false, composerNotice: toNotice(error) });
            if (!(error instanceof RunstreamError && 'status' in error))
              this.#unconfirmedSend = { text: trimmed, clientMessageId };
            resolve(false);
            // A 409 means the page's picture is stale (another tab started or paused a run), and after a
            // network failure the message may have been stored after all: show what the server has.
            void this.#load(sentTo, this.#generation);
          },
        },
      );
    });
  }

  /**
   * The explicit stop: `cancel` with `reason` (default `user_stop`). A stream being read then
   * delivers `run.cancelled`; a run shown as running without a stream (its connection gave up) is
   * reloaded.
   */
  async stop(reason = 'user_stop'): Promise<void> {
    if (this.#current.stopping) return;
    const active = this.#streams.active;
    if (active === null) {
      const last = this.#current.conversation.items.at(-1);
      const runId = last?.kind === 'assistant' && last.state.status === 'running' ? last.state.runId : null;
      const conversationId = this.#current.conversation.id;
      if (runId == null || conversationId === null) return;
      this.#update({ stopping: true });
      await this.#streams.cancel(runId, this.#generation, reason);
      this.#update({ stopping: false });
      await this.#load(conversationId, this.#generation);
      return;
    }
    active.stopRequested = true;
    active.stopReason = reason;
    this.#update({ stopping: true });
    const runId = active.stream.runId ?? this.#stateOf(active.itemKey)?.runId ?? undefined;
    // Before the response headers there is no run id yet; `RunStreams.follow` cancels once it learns it.
    if (runId !== undefined) {
      active.cancelSent = true;
      await this.#streams.cancel(runId, this.#generation, reason);
    }
  }

  /**
   * Approve or reject a paused write, with an optional `note` the decision keeps (why the customer
   * said no, say). A second click while the first is in flight does nothing.
   */
  async decide(toolCallId: string, decision: ConfirmationDecision, note?: string): Promise<void> {
    const current = this.#current;
    if (current.deciding.has(toolCallId)) return;
    const item = [...current.conversation.items]
      .reverse()
      .find(
        (candidate): candidate is Extract<ChatItem, { kind: 'assistant' }> =>
          candidate.kind === 'assistant' &&
          candidate.state.pause?.pending.some((call) => call.toolCallId === toolCallId) === true,
      );
    const conversationId = current.conversation.id;
    const runId = item?.state.runId;
    if (item === undefined || runId == null || conversationId === null) return;
    const generation = this.#generation;
    this.#update({
      deciding: new Set([...current.deciding, toolCallId]),
      decisionErrors: withoutKey(current.decisionErrors, toolCallId),
      // The 409 that sent the shopper to this card has been answered.
      composerNotice: null,
    });
    const abort = new AbortController();
    const stream = this.#client.decide(runId, toolCallId, decision, {
      ...(note === undefined ? {} : { note }),
      state: item.state,
      signal: abort.signal,
      onConnectionChange: (change) => this.#streams.onConnectionChange(change, abort),
    });
    let refused = false;
    await this.#streams.follow(
      { conversationId, itemKey: item.key, stream, abort, stopRequested: false, cancelSent: false },
      {
        onFirstUpdate: () => this.#doneDeciding(toolCallId),
        onRefused: (error) => {
          refused = true;
          this.#doneDeciding(toolCallId);
          this.#update({
            decisionErrors: new Map([...this.#current.decisionErrors, [toolCallId, toNotice(error)]]),
          });
        },
      },
    );
    this.#doneDeciding(toolCallId);
    if (generation !== this.#generation) return;
    // Refused (decided elsewhere), or accepted without events (another card of the same pause is still
    // open, so the run did not move): either way the server knows the card's state; show it.
    const after = this.#stateOf(item.key);
    if (refused || after?.pause?.pending.some((call) => call.toolCallId === toolCallId))
      await this.#load(conversationId, generation);
  }

  /** Whether the composer must wait: a run streams, a confirmation is pending, or a send is in flight. */
  isBusy(): boolean {
    return composerBlock(this.#current) !== null;
  }

  /** Leave the page: disconnect without stopping any run. */
  dispose(): void {
    this.#streams.clearReconnectedTimer();
    this.#streams.disconnect();
  }

  async #load(id: string, generation: number): Promise<void> {
    let detail: ConversationDetail;
    try {
      detail = await this.#client.getConversation(id);
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#handleAuth(error);
      this.#update({
        conversation: {
          ...EMPTY_CONVERSATION,
          id,
          status: error instanceof NotFoundError ? 'not_found' : 'error',
          error: toNotice(error),
        },
      });
      return;
    }
    if (generation !== this.#generation) return;
    // A reload while a stream of this conversation is read keeps the live item (see `restoredItems`).
    const active = this.#streams.active?.conversationId === id ? this.#streams.active : null;
    const items = restoredItems(detail, this.#current.conversation.items, active?.itemKey ?? null);
    const agentId = detail.agentId ?? null;
    const { agents } = this.#current;
    this.#update({
      conversation: { id, title: detail.title, agentId, status: 'ready', error: null, items },
      // The picker follows what is on screen, so "new conversation" goes on with the same agent
      // (`loadAgents` drops an id the server does not run, whichever answers first).
      ...(agentId !== null && (agents.length === 0 || agents.some((agent) => agent.id === agentId))
        ? { selectedAgentId: agentId }
        : {}),
    });
    const last = items.at(-1);
    // A run still going (a refresh mid-stream, or one started elsewhere): follow it from where the
    // persisted message ends; the replay fills the gap and live events follow.
    if (
      last?.kind === 'assistant' &&
      last.state.status === 'running' &&
      last.state.runId &&
      !this.#streams.active
    ) {
      const abort = new AbortController();
      const stream = this.#client.followRun(last.state.runId, {
        state: last.state,
        signal: abort.signal,
        onConnectionChange: (change) => this.#streams.onConnectionChange(change, abort),
      });
      void this.#streams.follow(
        { conversationId: id, itemKey: last.key, stream, abort, stopRequested: false, cancelSent: false },
        {},
      );
    }
  }

  #doneDeciding(toolCallId: string): void {
    if (!this.#current.deciding.has(toolCallId)) return;
    const deciding = new Set(this.#current.deciding);
    deciding.delete(toolCallId);
    this.#update({ deciding });
  }

  #stateOf(itemKey: string): MessageState | undefined {
    const item = this.#current.conversation.items.find((candidate) => candidate.key === itemKey);
    return item?.kind === 'assistant' ? item.state : undefined;
  }

  #setState(itemKey: string, state: MessageState): void {
    this.#updateItems((items) =>
      items.map((item) => (item.key === itemKey && item.kind === 'assistant' ? { ...item, state } : item)),
    );
  }

  #updateItems(change: (items: readonly ChatItem[]) => readonly ChatItem[]): void {
    const conversation = this.#current.conversation;
    this.#update({ conversation: { ...conversation, items: change(conversation.items) } });
  }

  #handleAuth(error: unknown): void {
    if (error instanceof UnauthorizedError) this.#options.onUnauthorized?.();
  }

  #newKey(prefix: string): string {
    this.#keyCounter += 1;
    return `local_${prefix}_${this.#keyCounter}`;
  }

  #update(change: Partial<ChatSnapshot>): void {
    this.#frames.update(change);
  }
}

function withoutKey<V>(map: ReadonlyMap<string, V>, key: string): ReadonlyMap<string, V> {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
}

function randomId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}
