import type { ConfirmBlock } from '../../protocol/index.ts';
import { type ChatItem, type ChatSnapshot, composerBlock, type Notice } from './chat-snapshot.ts';

/**
 * Where a chat stands, as one word for a page to switch on:
 * - `loading`: the conversation is being restored; `not_found` / `error`: it could not be;
 * - `ready`: a message can be sent;
 * - `submitted`: a message is on its way and its run has not said anything yet;
 * - `streaming`: a run is going (read live, or shown as running without a stream);
 * - `awaiting_confirmation`: a run is paused on a confirmation card (`pendingConfirmations`);
 * - `awaiting_tool_result`: a run is paused until the calling program submits tool results.
 */
export type RunstreamChatStatus =
  | 'loading'
  | 'not_found'
  | 'error'
  | 'ready'
  | 'submitted'
  | 'streaming'
  | 'awaiting_confirmation'
  | 'awaiting_tool_result';

export function chatStatus(snapshot: ChatSnapshot): RunstreamChatStatus {
  const { status } = snapshot.conversation;
  if (status === 'loading' || status === 'not_found' || status === 'error') return status;
  if (snapshot.sending) return 'submitted';
  switch (composerBlock(snapshot)) {
    case 'streaming':
      return 'streaming';
    case 'pending_confirmation':
      return 'awaiting_confirmation';
    case 'waiting_for_host':
      return 'awaiting_tool_result';
    default:
      return 'ready';
  }
}

/** The cards waiting for a decision: those of the last assistant message still `pending`. */
export function pendingConfirmationsOf(items: readonly ChatItem[]): ConfirmBlock[] {
  const last = items.at(-1);
  if (last?.kind !== 'assistant') return [];
  return last.state.blocks.filter(
    (block): block is ConfirmBlock => block.kind === 'confirm' && block.status === 'pending',
  );
}

/**
 * The one thing that went wrong to show, most lasting first: the conversation could not be loaded,
 * the connection gave up, or the last send, stop or decision was refused (the server's 409 …).
 */
export function chatError(snapshot: ChatSnapshot): Notice | null {
  if (snapshot.conversation.error !== null) return snapshot.conversation.error;
  if (snapshot.connection.status === 'failed') return snapshot.connection.notice;
  return snapshot.composerNotice;
}
