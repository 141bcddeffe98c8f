import { useCallback, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { createRunstreamClient, type RunstreamClient } from '../../client/index.ts';
import type { ConfirmBlock } from '../../protocol/index.ts';
import type { MessageActions } from '../blocks/message-actions.ts';
import { ChatController } from './chat-controller.ts';
import type { ChatItem, ChatSnapshot, ConnectionView, Notice } from './chat-snapshot.ts';
import { chatError, chatStatus, pendingConfirmationsOf, type RunstreamChatStatus } from './chat-status.ts';

/** What it takes to make a client: the API's address and how to authenticate. */
export interface RunstreamChatEndpoint {
  /** The API's origin and mount, e.g. `https://shop.example` or `https://shop.example/support`. */
  baseUrl: string;
  /** A bearer token, or a function returning a fresh one for each request. */
  token?: string | (() => string | Promise<string>);
  /** Headers for every request (a CSRF token, a tenant); a function is called per request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

/** A client of your own (shared with other parts of the page), or what it takes to make one. */
export type RunstreamChatConnection = { client: RunstreamClient } | RunstreamChatEndpoint;

export type UseRunstreamChatOptions = RunstreamChatConnection & {
  /**
   * The conversation to show. On mount (and when it changes) it is restored as persisted, and a run
   * still going is followed from where the stored message ends. `null` or absent: a new
   * conversation, created on the server with the first `send` (`onConversationCreated` hears its id,
   * and `conversationId` in the result holds it; passing that id back in later does not reload).
   */
  conversationId?: string | null;
  /** The agent of a conversation created by `send`; absent, the server's default agent. */
  agentId?: string;
  onConversationCreated?: (conversationId: string) => void;
  /** The server refused the token (401): sign in again. */
  onUnauthorized?: () => void;
};

export interface RunstreamChat {
  /** The open conversation's id; `null` until the first `send` creates one. */
  conversationId: string | null;
  /**
   * The conversation's messages in order: `{ kind: 'user', key, text }` and `{ kind: 'assistant',
   * key, state }`, where `state` is the protocol reducer's `MessageState` (its `blocks`, `status`,
   * `pause` …), ready for `<AssistantMessage state={…} />`.
   */
  messages: readonly ChatItem[];
  status: RunstreamChatStatus;
  /** The cards of the last message waiting for `approve` or `reject`. */
  pendingConfirmations: readonly ConfirmBlock[];
  /**
   * Send a message and stream its run. Resolves `true` once the server accepted it and `false` when
   * it was refused or nothing could be sent (busy, empty); `error` then says why.
   */
  send(text: string): Promise<boolean>;
  /** Approve a card's write (its `toolCallId`); `note` is kept with the decision. */
  approve(toolCallId: string, note?: string): Promise<void>;
  reject(toolCallId: string, note?: string): Promise<void>;
  /** End the run early (unlike leaving the page, which only disconnects); `reason` defaults to `user_stop`. */
  stop(reason?: string): Promise<void>;
  /**
   * The run stream's connection: `idle` (nothing to follow), `open`, `reconnecting` (resuming with
   * `Last-Event-ID`), `reconnected` (for a moment after), `failed` (gave up; `error` says why).
   */
  connection: ConnectionView['status'];
  /** What went wrong last: a code the page may translate and the server's (or client's) sentence. */
  error: Notice | null;
  /**
   * What `AssistantMessage` needs for its cards: `<AssistantMessage state={…} actions={chat.actions} />`
   * (add `openSource` to handle citation links).
   */
  actions: RunstreamChatActions;
  /** The engine under the hook, and its whole snapshot, for pages that need more. */
  controller: ChatController;
  snapshot: ChatSnapshot;
}

export type RunstreamChatActions = Pick<MessageActions, 'decide' | 'deciding' | 'decisionErrors'>;

/**
 * One conversation with a runstream server, as React state: restored on mount (a refresh shows the
 * same messages and the same pending card), the live run followed and resumed across dropped
 * connections with `Last-Event-ID`, and send, approve, reject and stop. The work is `ChatController`'s
 * (the shipped chat page runs on the same one); this hook only ties it to a component's life.
 */
export function useRunstreamChat(options: UseRunstreamChatOptions): RunstreamChat {
  const latest = useRef(options);
  latest.current = options;
  const client = useClient(options);

  const controller = useMemo(
    () =>
      new ChatController({
        client,
        agentId: () => latest.current.agentId,
        onConversationCreated: (id) => latest.current.onConversationCreated?.(id),
        onUnauthorized: () => latest.current.onUnauthorized?.(),
      }),
    [client],
  );
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot, controller.getSnapshot);

  // Leaving (or a new client) only disconnects: the run goes on and is followed again when opened.
  const disposed = useRef(false);
  useEffect(
    () => () => {
      disposed.current = true;
      controller.dispose();
    },
    [controller],
  );
  const opened = useRef<ChatController | null>(null);
  const wanted = options.conversationId ?? null;
  useEffect(() => {
    // The conversation `send` created and handed back is already open: no reload.
    if (opened.current === controller && !disposed.current && wanted === controller.currentConversationId)
      return;
    opened.current = controller;
    disposed.current = false;
    void controller.openConversation(wanted);
  }, [controller, wanted]);

  const send = useCallback((text: string) => controller.send(text), [controller]);
  const approve = useCallback(
    (toolCallId: string, note?: string) => controller.decide(toolCallId, 'approve', note),
    [controller],
  );
  const reject = useCallback(
    (toolCallId: string, note?: string) => controller.decide(toolCallId, 'reject', note),
    [controller],
  );
  const stop = useCallback((reason?: string) => controller.stop(reason), [controller]);

  const items = snapshot.conversation.items;
  const pendingConfirmations = useMemo(() => pendingConfirmationsOf(items), [items]);
  const actions = useMemo<RunstreamChatActions>(
    () => ({
      decide: (toolCallId, decision) => void controller.decide(toolCallId, decision),
      deciding: snapshot.deciding,
      decisionErrors: new Map(
        [...snapshot.decisionErrors].map(([toolCallId, notice]) => [toolCallId, notice.message]),
      ),
    }),
    [controller, snapshot.deciding, snapshot.decisionErrors],
  );

  return {
    conversationId: snapshot.conversation.id,
    messages: items,
    status: chatStatus(snapshot),
    pendingConfirmations,
    send,
    approve,
    reject,
    stop,
    connection: snapshot.connection.status,
    error: chatError(snapshot),
    actions,
    controller,
    snapshot,
  };
}

/**
 * The client the hook talks through: the one given, or one made from `baseUrl` that reads the
 * latest `token`, `headers` and `fetch` on every request (so new values need no new client, and a
 * running stream is not dropped when a token is refreshed).
 */
function useClient(options: RunstreamChatConnection): RunstreamClient {
  const latest = useRef(options);
  latest.current = options;
  const given = 'client' in options ? options.client : undefined;
  const baseUrl = 'client' in options ? undefined : options.baseUrl;
  return useMemo(() => {
    if (given !== undefined) return given;
    const fetchWithHeaders: typeof fetch = async (input, init) => {
      // A request still in flight after the page switched to a client of its own goes out bare.
      const current: Partial<RunstreamChatEndpoint> = 'client' in latest.current ? {} : latest.current;
      const headers = new Headers(init?.headers);
      const extra = typeof current.headers === 'function' ? await current.headers() : current.headers;
      for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
      const token = typeof current.token === 'function' ? await current.token() : current.token;
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      const request = { ...init, headers };
      return current.fetch ? current.fetch(input, request) : globalThis.fetch(input, request);
    };
    return createRunstreamClient({ baseUrl: baseUrl ?? '', fetch: fetchWithHeaders });
  }, [given, baseUrl]);
}
