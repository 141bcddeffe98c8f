import type { ConversationDetail } from '../../client/index.ts';
import { fromMessage } from '../../protocol/index.ts';
import type { ChatItem } from './chat-snapshot.ts';

/**
 * A conversation's items exactly as persisted, except that a reload while a stream of it is read
 * keeps the live item (`liveItemKey`, from `current`): it is newer than what was persisted, and its
 * events keep arriving under its key. A pure function, kept apart from `ChatController`, which loads
 * the conversation and decides what to follow.
 */
export function restoredItems(
  detail: ConversationDetail,
  current: readonly ChatItem[],
  liveItemKey: string | null,
): ChatItem[] {
  const items: ChatItem[] = detail.messages.map((message) =>
    message.role === 'user'
      ? { kind: 'user', key: message.id, text: message.text }
      : { kind: 'assistant', key: message.id, state: fromMessage(message.message) },
  );
  if (liveItemKey !== null) {
    const liveIndex = current.findIndex((item) => item.key === liveItemKey);
    const liveItem = current[liveIndex];
    if (liveItem?.kind === 'assistant') {
      const stored = items.findIndex(
        (item) => liveItem.state.messageId !== null && item.key === liveItem.state.messageId,
      );
      if (stored >= 0) items[stored] = liveItem;
      else {
        // Not stored yet (or not known to be): keep it, with the message that started it, at the end.
        const userItem = current[liveIndex - 1];
        if (userItem?.kind === 'user' && !items.some((item) => item.key === userItem.key))
          items.push(userItem);
        items.push(liveItem);
      }
    }
  }
  return items;
}
