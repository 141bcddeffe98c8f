import { type AgentSummary, type ConversationSummary, RunstreamError } from '../../client/index.ts';
import type { MessageState } from '../../protocol/index.ts';

// What the chat page shows, as `ChatController` publishes it, and what the page reads off it
// (`composerBlock`, `canStop`): plain data and pure functions, kept apart from the controller that
// changes it (`chat-controller.ts` re-exports them under the same names).

export type ChatItem =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; state: MessageState };

/**
 * Something to tell the person: a stable `code` the page translates when it knows it (network
 * failures), and the server's or client's own sentence otherwise (the server's 409 is already in
 * the shopper's words).
 */
export interface Notice {
  code: string;
  message: string;
}

export interface ConversationView {
  /** `null` for a new conversation that is created on its first message. */
  id: string | null;
  title: string;
  /** The conversation's agent, once the server said (or, for a new one, once it was created). */
  agentId: string | null;
  status: 'empty' | 'loading' | 'ready' | 'not_found' | 'error';
  error: Notice | null;
  items: readonly ChatItem[];
}

/** The view of a new conversation, before its first message creates it on the server. */
export const EMPTY_CONVERSATION: ConversationView = {
  id: null,
  title: '',
  agentId: null,
  status: 'empty',
  error: null,
  items: [],
};

export type ConnectionView =
  | { status: 'idle' }
  | { status: 'open' }
  | { status: 'reconnecting'; attempt: number }
  | { status: 'reconnected' }
  | { status: 'failed'; notice: Notice };

export interface ChatSnapshot {
  /** The agents the server runs, its default first; empty until `GET /v1/agents` answered. */
  agents: readonly AgentSummary[];
  /** The agent of the next new conversation; `null` is the server's default. */
  selectedAgentId: string | null;
  conversations: readonly ConversationSummary[];
  conversationsError: Notice | null;
  conversation: ConversationView;
  connection: ConnectionView;
  /** A message is on its way (creating the conversation, waiting for the run to start). */
  sending: boolean;
  /** A run stream of this conversation is being read. */
  streaming: boolean;
  /** The explicit stop was sent and the run has not confirmed it yet. */
  stopping: boolean;
  /** For the composer: the server's 409, a failed send or stop. */
  composerNotice: Notice | null;
  deciding: ReadonlySet<string>;
  decisionErrors: ReadonlyMap<string, Notice>;
}

/** The snapshot of a page that has loaded nothing yet: a fresh one for each controller. */
export function initialSnapshot(): ChatSnapshot {
  return {
    agents: [],
    selectedAgentId: null,
    conversations: [],
    conversationsError: null,
    conversation: EMPTY_CONVERSATION,
    connection: { status: 'idle' },
    sending: false,
    streaming: false,
    stopping: false,
    composerNotice: null,
    deciding: new Set(),
    decisionErrors: new Map(),
  };
}

/** Why the composer cannot send right now, or `null` when it can. */
export function composerBlock(
  snapshot: ChatSnapshot,
): 'loading' | 'streaming' | 'pending_confirmation' | 'waiting_for_host' | null {
  if (snapshot.conversation.status === 'loading') return 'loading';
  if (snapshot.streaming || snapshot.sending) return 'streaming';
  const last = snapshot.conversation.items.at(-1);
  if (last?.kind === 'assistant') {
    if (last.state.status === 'paused')
      return last.state.pause?.reason === 'tool_result' ? 'waiting_for_host' : 'pending_confirmation';
    if (last.state.status === 'running' || last.state.status === 'idle') return 'streaming';
  }
  return null;
}

/** The last message is a run still going: the stop button applies, with or without a stream. */
export function canStop(snapshot: ChatSnapshot): boolean {
  const last = snapshot.conversation.items.at(-1);
  return snapshot.streaming || (last?.kind === 'assistant' && last.state.status === 'running');
}

/** An error as the page shows it: the client's code and sentence, or `unexpected`. */
export function toNotice(error: unknown): Notice {
  if (error instanceof RunstreamError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'unexpected', message: error.message };
  return { code: 'unexpected', message: String(error) };
}
