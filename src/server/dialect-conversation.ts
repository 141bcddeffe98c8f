import { createHash } from 'node:crypto';
import type { Conversation, RunStore } from '../store/index.ts';
import { RunStoreError } from '../store/index.ts';

/**
 * The ecosystem's chat clients name their threads themselves: the AI SDK's `useChat` sends its chat
 * `id`, AG-UI its `threadId`. Each (user, dialect, thread) maps to one runstream conversation whose id
 * is derived from the three, so no mapping table is needed, one user's thread id can never reach
 * another user's conversation, and the same thread id in two dialects stays two conversations.
 */
export function dialectConversationId(userId: string, dialect: string, threadId: string): string {
  const digest = createHash('sha256').update(`${userId}\u0000${dialect}\u0000${threadId}`).digest('hex');
  return `conv_${dialect.replace(/[^a-z0-9]/gi, '')}_${digest.slice(0, 24)}`;
}

/**
 * The conversation of a dialect's thread: found, or created on its first message with `title`. Two
 * first messages racing both end on the same conversation (the loser of the insert reads the winner's).
 */
export async function conversationForThread(
  store: RunStore,
  userId: string,
  dialect: string,
  threadId: string,
  title: string,
): Promise<Conversation> {
  const id = dialectConversationId(userId, dialect, threadId);
  const existing = await store.getConversation(id);
  if (existing !== undefined) return existing;
  try {
    return await store.createConversation(userId, title, { id });
  } catch (error) {
    if (!(error instanceof RunStoreError) || error.code !== 'already_exists') throw error;
    const winner = await store.getConversation(id);
    if (winner === undefined) throw error;
    return winner;
  }
}
