import type { ResolvedAgent, RunManager } from '../../runtime/index.ts';
import { sha256Hex } from '../../shared/index.ts';
import type { Conversation, RunStore } from '../../store/index.ts';
import { RunStoreError } from '../../store/run-store-error.ts';
import { HttpError } from '../http-error.ts';

/**
 * The ecosystem's chat clients name their threads themselves: the AI SDK's `useChat` sends its chat
 * `id`, AG-UI its `threadId`. Each (user, dialect, thread) maps to one runstream conversation whose id
 * is derived from the three, so no mapping table is needed, one user's thread id can never reach
 * another user's conversation, and the same thread id in two dialects stays two conversations.
 */
export function dialectConversationId(userId: string, dialect: string, threadId: string): string {
  const digest = sha256Hex(`${userId}\u0000${dialect}\u0000${threadId}`);
  return `conv_${dialect.replace(/[^a-z0-9]/gi, '')}_${digest.slice(0, 24)}`;
}

/**
 * The conversation of a dialect's thread: found, or created on its first message with `title`, for
 * the agent `agentId` (see `agentForThread`). Two first messages racing both end on the same
 * conversation (the loser of the insert reads the winner's), or, when they named different agents,
 * the loser on `agent_mismatch`.
 */
export async function conversationForThread(
  store: RunStore,
  userId: string,
  dialect: string,
  threadId: string,
  title: string,
  agentId: string,
): Promise<Conversation> {
  const id = dialectConversationId(userId, dialect, threadId);
  const existing = await store.getConversation(id);
  if (existing !== undefined) return existing;
  try {
    return await store.createConversation(userId, title, { id, agentId });
  } catch (error) {
    if (!(error instanceof RunStoreError) || error.code !== 'already_exists') throw error;
    const winner = await store.getConversation(id);
    if (winner === undefined) throw error;
    // The race's winner named another agent: this message was checked against the wrong one.
    if (winner.agentId !== '' && winner.agentId !== agentId) throw agentMismatch(winner.agentId, agentId);
    return winner;
  }
}

/**
 * The agent a dialect request runs. A thread keeps the agent of its first message: its history was
 * written with that agent's prompt and tools. A new thread gets the agent the request names (`''` or
 * none: the server's default); an agent the server does not run is `unknown_agent` (400). A request
 * that names another agent than its thread's is `agent_mismatch` (400) rather than silently answered
 * by the thread's (`mismatchDetails` join that refusal's details).
 */
export async function agentForThread(
  store: RunStore,
  runs: Pick<RunManager, 'agent'>,
  userId: string,
  dialect: string,
  threadId: string,
  requested: string | undefined,
  mismatchDetails: Record<string, unknown> = {},
): Promise<ResolvedAgent> {
  const named = requested === undefined || requested === '' ? undefined : runs.agent(requested);
  const existing = await store.getConversation(dialectConversationId(userId, dialect, threadId));
  if (existing === undefined || existing.userId !== userId) return named ?? runs.agent();
  const own = runs.agent(existing.agentId);
  if (named !== undefined && named.id !== own.id) throw agentMismatch(own.id, named.id, mismatchDetails);
  return own;
}

/** The 400 of a request that names another agent than the one its thread (or response chain) has. */
export function agentMismatch(
  own: string,
  requested: string,
  details: Record<string, unknown> = {},
): HttpError {
  return new HttpError(
    400,
    'agent_mismatch',
    `this conversation belongs to the agent ${own}, not ${requested}: start a new one to talk to ${requested}`,
    { ...details, agentId: own },
  );
}
